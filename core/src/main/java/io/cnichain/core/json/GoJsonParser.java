package io.cnichain.core.json;

import io.cnichain.core.json.JsonValue.JArray;
import io.cnichain.core.json.JsonValue.JBool;
import io.cnichain.core.json.JsonValue.JNull;
import io.cnichain.core.json.JsonValue.JNumber;
import io.cnichain.core.json.JsonValue.JObject;
import io.cnichain.core.json.JsonValue.JString;
import io.cnichain.core.json.JsonValue.Member;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Reads JSON exactly as far as Go's {@code encoding/json} accepts it, because that is what libcni, and therefore
 * containerd and CRI-O, use: invalid UTF-8 becomes U+FFFD instead of an error, lone surrogate escapes too; nesting
 * is allowed to 10 000 levels; only space, tab, CR and LF are whitespace; nothing may follow the value; duplicate
 * keys are all kept (see {@link JObject#get} for which one a decoder uses). Errors use Go's wording. Iterative, so
 * deep nesting cannot overflow the stack.
 */
public final class GoJsonParser
{
    /** Go's {@code maxNestingDepth}: 10 000 levels parse, 10 001 do not. */
    public static final int MAX_DEPTH = 10_000;
    /**
     * The most values (scalars, arrays, objects) a document may hold: a CNI configuration has tens to hundreds, and each
     * one read costs the heap about a hundred bytes, so that a file of {@code maxConfigBytes} full of {@code 0,} would
     * need ten times the agent's heap. Beyond it the document is not read, as a file too large is not.
     */
    public static final int MAX_VALUES = 20_000;

    private final String text;
    private int pos;

    private GoJsonParser(String text)
    {
        this.text = text;
    }

    /**
     * @param text a whole document
     * @return its value
     * @throws CniJson.InvalidJsonException with Go's reason and the line and column
     */
    public static JsonValue parse(String text)
    {
        return new GoJsonParser(text).document();
    }

    private int values;

    /** More values than {@link #MAX_VALUES}: not read, as a file over the size limit is not. */
    public static final class TooManyValues
            extends CniJson.InvalidJsonException
    {
        TooManyValues()
        {
            super("holds more than " + MAX_VALUES + " JSON values (a CNI configuration has hundreds); not read");
        }
    }

    private JsonValue document()
    {
        JsonValue value = values();
        skipWhitespace();
        if (pos < text.length()) {
            throw error("invalid character " + quote(text.charAt(pos)) + " after top-level value");
        }
        return value;
    }

    /** One value and everything in it, with an explicit stack of the containers being read. */
    private JsonValue values()
    {
        Deque<Container> open = new ArrayDeque<>();
        while (true) {
            skipWhitespace();
            JsonValue done;
            int c = peek();
            if (c == '{' || c == '[') {
                if (open.size() >= MAX_DEPTH) {
                    throw error("exceeded max depth");
                }
                Container container = new Container(c == '{', pos++);
                open.push(container);
                skipWhitespace();
                if (peek() == (container.object ? '}' : ']')) {
                    pos++;
                    done = open.pop().close(pos);
                }
                else {
                    if (container.object) {
                        container.key();
                    }
                    continue;
                }
            }
            else {
                done = scalar(c);
            }
            if (++values > MAX_VALUES) {
                throw new TooManyValues();
            }
            // A value is complete: hand it to its container, closing every container that ends here.
            while (true) {
                if (open.isEmpty()) {
                    return done;
                }
                Container container = open.peek();
                container.add(done);
                skipWhitespace();
                int next = peek();
                if (next == ',') {
                    pos++;
                    if (container.object) {
                        skipWhitespace();
                        container.key();
                    }
                    break;
                }
                if (next == (container.object ? '}' : ']')) {
                    pos++;
                    done = open.pop().close(pos);
                    continue;
                }
                throw error("invalid character " + quote((char) next) + (container.object ? " after object key:value pair" : " after array element"));
            }
        }
    }

    private JsonValue scalar(int c)
    {
        int start = pos;
        if (c == '"') {
            return new JString(string(), start, pos);
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            return new JNumber(number(), start, pos);
        }
        if (c == 't') {
            literal("true");
            return new JBool(true, start, pos);
        }
        if (c == 'f') {
            literal("false");
            return new JBool(false, start, pos);
        }
        if (c == 'n') {
            literal("null");
            return new JNull(start, pos);
        }
        throw error("invalid character " + quote((char) c) + " looking for beginning of value");
    }

    private String string()
    {
        pos++;
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unexpected end of JSON input");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw error("invalid character " + quote(c) + " in string literal");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (pos >= text.length()) {
                throw error("unexpected end of JSON input");
            }
            char escape = text.charAt(pos++);
            switch (escape) {
                case '"', '\\', '/' -> out.append(escape);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    char unit = hex4();
                    if (Character.isHighSurrogate(unit) && text.startsWith("\\u", pos)) {
                        int save = pos;
                        pos += 2;
                        char low = hex4();
                        if (Character.isLowSurrogate(low)) {
                            out.append(unit).append(low);
                            continue;
                        }
                        pos = save;
                    }
                    // As Go does: a surrogate that is not half of a valid pair becomes U+FFFD.
                    out.append(Character.isSurrogate(unit) ? '\uFFFD' : unit);
                }
                default -> throw error("invalid character " + quote(escape) + " in string escape code");
            }
        }
    }

    private char hex4()
    {
        int value = 0;
        for (int i = 0; i < 4; i++) {
            if (pos >= text.length()) {
                throw error("unexpected end of JSON input");
            }
            char c = text.charAt(pos++);
            int digit = Character.digit(c, 16);
            if (digit < 0 || c > 'f') {
                throw error("invalid character " + quote(c) + " in \\u hexadecimal character escape");
            }
            value = value * 16 + digit;
        }
        return (char) value;
    }

    private String number()
    {
        int start = pos;
        if (text.charAt(pos) == '-') {
            pos++;
            int c = peek();
            if (c < '0' || c > '9') {
                throw error("invalid character " + quote((char) c) + " in numeric literal");
            }
        }
        if (text.charAt(pos) == '0') {
            pos++;
        }
        else {
            digits();
        }
        if (pos < text.length() && text.charAt(pos) == '.') {
            pos++;
            requireDigit();
            digits();
        }
        if (pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
            pos++;
            if (pos < text.length() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
                pos++;
            }
            requireDigit();
            digits();
        }
        return text.substring(start, pos);
    }

    private void requireDigit()
    {
        int c = peek();
        if (c < '0' || c > '9') {
            throw error("invalid character " + quote((char) c) + " in numeric literal");
        }
    }

    private void digits()
    {
        while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
            pos++;
        }
    }

    private void literal(String word)
    {
        for (int i = 0; i < word.length(); i++) {
            if (pos >= text.length()) {
                throw error("unexpected end of JSON input");
            }
            char c = text.charAt(pos);
            if (c != word.charAt(i)) {
                throw error("invalid character " + quote(c) + " in literal " + word + " (expecting " + quote(word.charAt(i)) + ")");
            }
            pos++;
        }
    }

    private int peek()
    {
        if (pos >= text.length()) {
            throw error("unexpected end of JSON input");
        }
        return text.charAt(pos);
    }

    private void skipWhitespace()
    {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private CniJson.InvalidJsonException error(String reason)
    {
        int line = 1;
        int column = 1;
        for (int i = 0; i < Math.min(pos, text.length()); i++) {
            if (text.charAt(i) == '\n') {
                line++;
                column = 1;
            }
            else {
                column++;
            }
        }
        return new CniJson.InvalidJsonException("is not valid JSON: " + reason + " at line " + line + ", column " + column);
    }

    /** Go's quoteChar: the character in single quotes, escaped when it is not printable. */
    private static String quote(char c)
    {
        if (c == '\'') {
            return "'\\''";
        }
        if (c < 0x20 || c == 0x7f) {
            return String.format("'\\x%02x'", (int) c);
        }
        return "'" + c + "'";
    }

    /** An object or array being read. */
    private final class Container
    {
        final boolean object;
        final int start;
        final List<Member> members = new ArrayList<>();
        final List<JsonValue> elements = new ArrayList<>();
        String key;
        int keyStart;

        Container(boolean object, int start)
        {
            this.object = object;
            this.start = start;
        }

        /** Reads {@code "key" :} before the next value. */
        void key()
        {
            int c = peek();
            if (c != '"') {
                throw error("invalid character " + quote((char) c) + " looking for beginning of object key string");
            }
            keyStart = pos;
            key = string();
            skipWhitespace();
            int colon = peek();
            if (colon != ':') {
                throw error("invalid character " + quote((char) colon) + " after object key");
            }
            pos++;
        }

        void add(JsonValue value)
        {
            if (object) {
                members.add(new Member(key, value, keyStart));
            }
            else {
                elements.add(value);
            }
        }

        JsonValue close(int end)
        {
            return object ? new JObject(members, start, end) : new JArray(elements, start, end);
        }
    }
}
