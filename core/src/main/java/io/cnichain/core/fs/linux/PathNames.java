package io.cnichain.core.fs.linux;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * File names are bytes; the JVM names files with strings, encoded in its path encoding (from the locale: UTF-8 under
 * the launcher, which runs the JVM under {@code C.UTF-8}; ASCII where that locale is not installed). A name whose bytes
 * are not valid in that encoding cannot be named from Java: it can be reported, never opened, and never made a path.
 */
public final class PathNames
{
    /** The JVM's encoding of file names. */
    public static final Charset ENCODING = encoding();

    private PathNames() {}

    /**
     * @param directory a directory
     * @param name      an entry's name, as bytes
     * @return the entry's path, when the JVM can name exactly those bytes
     */
    public static Optional<Path> toPath(Path directory, byte[] name)
    {
        Optional<String> decoded = decode(name);
        if (decoded.isEmpty() || decoded.get().indexOf('/') >= 0 || decoded.get().isEmpty()) {
            return Optional.empty();
        }
        try {
            Path path = directory.resolve(decoded.get());
            return path.getFileName().toString().equals(decoded.get()) ? Optional.of(path) : Optional.empty();
        }
        catch (InvalidPathException e) {
            return Optional.empty();
        }
    }

    /** @return the name decoded, when its bytes are valid in the JVM's path encoding */
    public static Optional<String> decode(byte[] name)
    {
        try {
            return Optional.of(ENCODING.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(name))
                    .toString());
        }
        catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /**
     * @return the name for a log line or message: printable ASCII and valid UTF-8 letters as they are, every other
     *         byte (control characters, a newline, invalid UTF-8) as {@code \xNN}, so that no name can forge a line
     */
    public static String printable(byte[] name)
    {
        StringBuilder out = new StringBuilder(name.length);
        String text = new String(name, StandardCharsets.UTF_8);
        boolean valid = java.util.Arrays.equals(text.getBytes(StandardCharsets.UTF_8), name);
        if (valid) {
            for (int i = 0; i < text.length(); ) {
                int c = text.codePointAt(i);
                if (c < 0x20 || c == 0x7f || c == '\\' || (c >= 0x80 && Character.isISOControl(c))) {
                    for (byte b : new String(Character.toChars(c)).getBytes(StandardCharsets.UTF_8)) {
                        out.append(String.format("\\x%02x", b & 0xff));
                    }
                }
                else {
                    out.appendCodePoint(c);
                }
                i += Character.charCount(c);
            }
            return out.toString();
        }
        for (byte b : name) {
            int c = b & 0xff;
            if (c >= 0x20 && c < 0x7f && c != '\\') {
                out.append((char) c);
            }
            else {
                out.append(String.format("\\x%02x", c));
            }
        }
        return out.toString();
    }

    private static Charset encoding()
    {
        String name = System.getProperty("sun.jnu.encoding");
        try {
            return name == null ? Charset.defaultCharset() : Charset.forName(name);
        }
        catch (RuntimeException e) {
            return Charset.defaultCharset();
        }
    }
}
