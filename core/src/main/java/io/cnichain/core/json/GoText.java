package io.cnichain.core.json;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** A file's bytes as Go's JSON decoder reads them. */
public final class GoText
{
    private GoText() {}

    /**
     * Decodes bytes as Go sees them: UTF-8, each invalid sequence replaced by U+FFFD.
     *
     * @param bytes file content
     * @return the text
     */
    public static String decode(byte[] bytes)
    {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        try {
            CharBuffer chars = decoder.decode(ByteBuffer.wrap(bytes));
            return chars.toString();
        }
        catch (CharacterCodingException e) {
            throw new IllegalStateException("a replacing decoder does not fail", e);
        }
    }
}
