package io.cnichain.cli.logging;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.Printable;
import io.cnichain.core.json.CniJson;
import org.slf4j.event.Level;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Locale;

/**
 * The settings of our SLF4J backend: one line per event on standard error (standard output is for command
 * results such as {@code detect --output json}), as text or as JSON. Changeable at any time.
 */
public final class ConsoleLogging
{
    private static volatile Level level = Level.INFO;
    private static volatile boolean json;
    private static volatile PrintStream out = System.err;

    private ConsoleLogging() {}

    /**
     * @param levelName trace, debug, info, warn or error
     * @param format    text or json
     */
    public static void configure(String levelName, String format)
    {
        level = Level.valueOf(levelName.toUpperCase(Locale.ROOT));
        json = format.equals("json");
    }

    /** Where lines go; tests capture them. */
    public static void redirect(PrintStream stream)
    {
        out = stream;
    }

    public static PrintStream stream()
    {
        return out;
    }

    static boolean enabled(Level candidate)
    {
        return candidate.toInt() >= level.toInt();
    }

    static void emit(Level eventLevel, String logger, String message, Throwable error)
    {
        String now = timestamp(System.currentTimeMillis());
        String line;
        if (json) {
            ObjectNode node = CniJson.nodes().objectNode();
            node.put("time", now);
            node.put("level", eventLevel.name().toLowerCase(Locale.ROOT));
            node.put("logger", shortName(logger));
            node.put("msg", message);
            if (error != null) {
                node.put("error", String.valueOf(error));
                if (enabled(Level.DEBUG)) {
                    node.put("stack", stackTrace(error));
                }
            }
            line = CniJson.compact(node);
        }
        else {
            StringBuilder text = new StringBuilder(64 + message.length())
                    .append('[').append(now).append("] ")
                    .append(padded(eventLevel))
                    .append(oneLine(message));
            if (error != null) {
                text.append(": ").append(oneLine(String.valueOf(error)));
                if (enabled(Level.DEBUG)) {
                    text.append(System.lineSeparator()).append(stackTrace(error));
                }
            }
            line = text.toString();
        }
        // Encoded here and written as bytes, in one call as println makes it: println's way through the stream's character
        // encoder and its buffers costs more than the rest of a line, and a line or two is on the reaction's path.
        PrintStream stream = out;
        byte[] bytes = (line + System.lineSeparator()).getBytes(stream.charset());
        stream.write(bytes, 0, bytes.length);
    }

    /**
     * One event, one line ({@link Printable#line}): a control character in a message (a newline in a file name, say) is
     * written as an escape, so that no name can forge a line of its own. (A stack trace, at debug, follows on lines of
     * its own.)
     */
    static String oneLine(String message)
    {
        return Printable.line(message);
    }

    /**
     * "2026-01-02T03:04:05.678Z" (no fraction on a whole second), as {@code Instant} writes it. By arithmetic for the
     * years 0 to 9999: {@code Instant.toString()}'s formatter loads dozens of {@code java.time} classes, which the AOT
     * cache then maps and loads at every start, and its first use runs in the interpreter before the first log line.
     * Other years go through {@code Instant}, which writes them differently.
     */
    static String timestamp(long millis)
    {
        long second = Math.floorDiv(millis, 1000L);
        int milli = (int) Math.floorMod(millis, 1000L);
        long days = Math.floorDiv(second, 86_400L);
        int secondOfDay = (int) Math.floorMod(second, 86_400L);
        // Days counted from 0000-03-01 in 400-year eras of 146 097 days, so that a leap day is the last day of its year.
        long fromMarch = days + 719_468L;
        long era = Math.floorDiv(fromMarch, 146_097L);
        long dayOfEra = fromMarch - era * 146_097L;
        long yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        long monthFromMarch = (5 * dayOfYear + 2) / 153;
        int day = (int) (dayOfYear - (153 * monthFromMarch + 2) / 5 + 1);
        int month = (int) (monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9);
        long year = era * 400 + yearOfEra + (month <= 2 ? 1 : 0);
        if (year < 0 || year > 9999) {
            return java.time.Instant.ofEpochMilli(millis).toString();
        }
        char[] text = new char[milli == 0 ? 20 : 24];
        digits(text, 0, (int) year, 4);
        text[4] = '-';
        digits(text, 5, month, 2);
        text[7] = '-';
        digits(text, 8, day, 2);
        text[10] = 'T';
        digits(text, 11, secondOfDay / 3600, 2);
        text[13] = ':';
        digits(text, 14, secondOfDay / 60 % 60, 2);
        text[16] = ':';
        digits(text, 17, secondOfDay % 60, 2);
        if (milli != 0) {
            text[19] = '.';
            digits(text, 20, milli, 3);
        }
        text[text.length - 1] = 'Z';
        return new String(text);
    }

    private static void digits(char[] text, int at, int value, int width)
    {
        for (int i = at + width - 1; i >= at; i--) {
            text[i] = (char) ('0' + value % 10);
            value /= 10;
        }
    }

    /** The level's name padded to five characters and a blank, as {@code %-5s } would. */
    private static String padded(Level level)
    {
        return switch (level) {
            case ERROR -> "ERROR ";
            case WARN -> "WARN  ";
            case INFO -> "INFO  ";
            case DEBUG -> "DEBUG ";
            case TRACE -> "TRACE ";
        };
    }

    private static String shortName(String logger)
    {
        int dot = logger.lastIndexOf('.');
        return dot < 0 ? logger : logger.substring(dot + 1);
    }

    private static String stackTrace(Throwable error)
    {
        StringWriter writer = new StringWriter();
        error.printStackTrace(new PrintWriter(writer));
        return writer.toString().stripTrailing();
    }
}
