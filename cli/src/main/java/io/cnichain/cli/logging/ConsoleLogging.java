package io.cnichain.cli.logging;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.json.CniJson;
import org.slf4j.event.Level;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
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
                text.append(": ").append(error);
                if (enabled(Level.DEBUG)) {
                    text.append(System.lineSeparator()).append(stackTrace(error));
                }
            }
            line = text.toString();
        }
        out.println(line);
    }

    /**
     * One event, one line: a control character in a message (a newline in a file name, say) is written as {@code \n},
     * {@code \r} or {@code \xNN}, so that no name can forge a line of its own. (A stack trace, at debug, follows on
     * lines of its own.)
     */
    static String oneLine(String message)
    {
        StringBuilder out = null;
        for (int i = 0; i < message.length(); i++) {
            char c = message.charAt(i);
            boolean control = (c < 0x20 && c != '\t') || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029';
            if (control) {
                if (out == null) {
                    out = new StringBuilder(message.length() + 16).append(message, 0, i);
                }
                out.append(c == '\n' ? "\\n" : c == '\r' ? "\\r" : String.format("\\x%02x", (int) c));
            }
            else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? message : out.toString();
    }

    /** "2026-01-02T03:04:05.678Z" (no fraction on a whole second), as {@code Instant} writes it. */
    static String timestamp(long millis)
    {
        return Instant.ofEpochMilli(millis).toString();
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
