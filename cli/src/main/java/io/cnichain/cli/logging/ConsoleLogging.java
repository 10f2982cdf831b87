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
        Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        String line;
        if (json) {
            ObjectNode node = CniJson.nodes().objectNode();
            node.put("time", now.toString());
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
                    .append(String.format(Locale.ROOT, "%-5s ", eventLevel.name()))
                    .append(message);
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
