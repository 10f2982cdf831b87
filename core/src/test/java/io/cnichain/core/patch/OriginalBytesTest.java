package io.cnichain.core.patch;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class OriginalBytesTest
{
    static byte[] bytes(Object... parts)
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object part : parts) {
            if (part instanceof String text) {
                out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
            }
            else {
                out.write((Integer) part);
            }
        }
        return out.toByteArray();
    }

    @Test
    void bytesThatAreNotUtf8StayAsTheyWereOutsideTheEdit()
    {
        byte[] original = bytes("{\"name\":\"caf", 0xe9, "\",\"plugins\":[{\"type\":\"calico\"}],\"note\":\"", 0xff, 0xfe, "\"}");
        String text = new String(original, StandardCharsets.UTF_8);
        byte[] edited = text.replace("[{\"type\":\"calico\"}]", "[{\"type\":\"calico\"},{\"type\":\"linkerd-cni\"}]").getBytes(StandardCharsets.UTF_8);

        byte[] kept = OriginalBytes.keep(original, edited);

        assertThat(kept).isEqualTo(bytes("{\"name\":\"caf", 0xe9, "\",\"plugins\":[{\"type\":\"calico\"},{\"type\":\"linkerd-cni\"}],\"note\":\"", 0xff, 0xfe,
                "\"}"));
        // And back: removing the entry gives the original bytes.
        String keptText = new String(kept, StandardCharsets.UTF_8);
        byte[] removed = keptText.replace(",{\"type\":\"linkerd-cni\"}", "").getBytes(StandardCharsets.UTF_8);
        assertThat(OriginalBytes.keep(kept, removed)).isEqualTo(original);
    }

    @Test
    void validUtf8IsTheEncodedTextAsItIs()
    {
        byte[] original = "{\"name\":\"café 一 😀\",\"plugins\":[]}".getBytes(StandardCharsets.UTF_8);
        byte[] edited = "{\"name\":\"café 一 😀\",\"plugins\":[{\"type\":\"x\"}]}".getBytes(StandardCharsets.UTF_8);
        assertThat(OriginalBytes.keep(original, edited)).isEqualTo(edited);
    }

    @Test
    void anEditNextToAnInvalidByteKeepsIt()
    {
        byte[] original = bytes("[", 0xc3, "]");
        byte[] edited = (new String(original, StandardCharsets.UTF_8).replace("]", ",1]")).getBytes(StandardCharsets.UTF_8);
        assertThat(OriginalBytes.keep(original, edited)).isEqualTo(bytes("[", 0xc3, ",1]"));
    }
}
