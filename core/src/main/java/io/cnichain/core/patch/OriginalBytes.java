package io.cnichain.core.patch;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The patcher edits a file's text, decoded as Go decodes it: a byte that is not valid UTF-8 reads as U+FFFD. Writing
 * that text back would turn each such byte into the three bytes of U+FFFD, in parts of the file we never meant to
 * touch. So the new text is put back into the original bytes: what it shares with the old text at its start and at its
 * end is the original's bytes, unchanged; only the part between is encoded anew.
 */
public final class OriginalBytes
{
    private OriginalBytes() {}

    /**
     * @param original the file's bytes
     * @param edited   the edited text, encoded (as the patcher produced it)
     * @return the edited file, with every byte outside the edited span as it was in {@code original}
     */
    public static byte[] keep(byte[] original, byte[] edited)
    {
        String before = decode(original);
        if (Arrays.equals(original, before.getBytes(StandardCharsets.UTF_8))) {
            // Valid UTF-8 throughout, as nearly every file is: the encoded text is the file. Asked first: the offsets
            // below decode the file a character at a time, which costs a write more than the rest of this.
            return edited;
        }
        int[] starts = charStarts(original);
        if (starts.length != before.length() + 1) {
            // A decoding this does not follow: the encoded text is the file.
            return edited;
        }
        String after = new String(edited, StandardCharsets.UTF_8);
        int prefix = 0;
        int most = Math.min(before.length(), after.length());
        while (prefix < most && before.charAt(prefix) == after.charAt(prefix)) {
            prefix++;
        }
        int suffix = 0;
        while (suffix < most - prefix && before.charAt(before.length() - 1 - suffix) == after.charAt(after.length() - 1 - suffix)) {
            suffix++;
        }
        // Never between the two halves of a surrogate pair, nor inside one decoded unit.
        while (prefix > 0 && (Character.isHighSurrogate(before.charAt(prefix - 1)) || starts[prefix] == starts[prefix - 1])) {
            prefix--;
        }
        while (suffix > 0 && (Character.isLowSurrogate(before.charAt(before.length() - suffix))
                || starts[before.length() - suffix] == starts[before.length() - suffix + 1])) {
            suffix--;
        }
        byte[] middle = after.substring(prefix, after.length() - suffix).getBytes(StandardCharsets.UTF_8);
        int head = starts[prefix];
        int tail = starts[before.length() - suffix];
        byte[] out = new byte[head + middle.length + (original.length - tail)];
        System.arraycopy(original, 0, out, 0, head);
        System.arraycopy(middle, 0, out, head, middle.length);
        System.arraycopy(original, tail, out, head + middle.length, original.length - tail);
        return out;
    }

    private static String decode(byte[] bytes)
    {
        return io.cnichain.core.json.GoText.decode(bytes);
    }

    /**
     * @return for each char of the decoded text, the offset of the bytes it was decoded from; one more entry, the length
     */
    private static int[] charStarts(byte[] bytes)
    {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer one = CharBuffer.allocate(1);
        CharBuffer two = CharBuffer.allocate(2);
        int[] starts = new int[bytes.length + 1];
        int count = 0;
        while (in.hasRemaining()) {
            int from = in.position();
            one.clear();
            decoder.decode(in, one, true);
            one.flip();
            if (one.hasRemaining()) {
                starts[count++] = from;
                continue;
            }
            // Nothing fit: a surrogate pair, two chars from the one sequence.
            two.clear();
            decoder.decode(in, two, true);
            two.flip();
            if (!two.hasRemaining()) {
                break;
            }
            while (two.hasRemaining()) {
                two.get();
                starts[count++] = from;
            }
        }
        starts[count] = bytes.length;
        return Arrays.copyOf(starts, count + 1);
    }
}
