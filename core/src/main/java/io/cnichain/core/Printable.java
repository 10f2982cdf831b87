package io.cnichain.core;

/**
 * The one way a value read from a file (a network name, a plugin type, a name in a directory) is put into a log line,
 * an error or {@code detect}'s output: its control characters written as escapes, so that no file can forge a line of
 * its own or hide part of one.
 */
public final class Printable
{
    private Printable() {}

    /**
     * A text as one line: a control character (a newline, a carriage return, a C1 control, a line or paragraph
     * separator) is written as {@code \n}, {@code \r} or {@code \xNN}; a tab stays.
     */
    public static String line(String text)
    {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (isControl(c) && c != '\t') {
                if (out == null) {
                    out = new StringBuilder(text.length() + 16).append(text, 0, i);
                }
                escape(out, c);
            }
            else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? text : out.toString();
    }

    /**
     * A value between single quotes, as messages name one: {@code 'k8s-pod-network'}. Every control character (a tab
     * included), the quote and the backslash are escaped, so that the quotes show where the value ends and two
     * different values never print the same.
     */
    public static String quoted(String value)
    {
        StringBuilder out = new StringBuilder(value.length() + 2).append('\'');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (isControl(c)) {
                escape(out, c);
            }
            else if (c == '\'' || c == '\\') {
                out.append('\\').append(c);
            }
            else {
                out.append(c);
            }
        }
        return out.append('\'').toString();
    }

    private static boolean isControl(char c)
    {
        return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029';
    }

    private static void escape(StringBuilder out, char c)
    {
        switch (c) {
            case '\n' -> out.append("\\n");
            case '\r' -> out.append("\\r");
            case '\t' -> out.append("\\t");
            default -> out.append(c > 0xff ? String.format("\\u%04x", (int) c) : String.format("\\x%02x", (int) c));
        }
    }
}
