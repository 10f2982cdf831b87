package io.cnichain.core.fs;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class Sha256Test
{
    @Test
    void theStandardsExamples()
    {
        // FIPS 180-4's examples (NIST's "SHA256.pdf"), and the empty message.
        assertThat(Sha256.hex("abc".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(Sha256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        assertThat(Sha256.hex(new byte[0])).isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    @Test
    void everyLengthAroundTheBlockBoundariesAsTheJdkDigestsIt()
            throws Exception
    {
        Random random = new Random(180_4);
        for (int length = 0; length <= 300; length++) {
            assertSameAsJdk(randomBytes(random, length));
        }
        for (int length : new int[] {4_095, 4_096, 65_536 + 55, 65_536 + 56, 1_000_003}) {
            assertSameAsJdk(randomBytes(random, length));
        }
    }

    private static byte[] randomBytes(Random random, int length)
    {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    private static void assertSameAsJdk(byte[] bytes)
            throws Exception
    {
        String jdk = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        assertThat(Sha256.hex(bytes)).as("%d bytes", bytes.length).isEqualTo(jdk);
        // Streamed, in reads of uneven sizes that split the blocks.
        InputStream uneven = new ByteArrayInputStream(bytes)
        {
            @Override
            public synchronized int read(byte[] into, int offset, int length)
            {
                return super.read(into, offset, Math.min(length, 7_777));
            }
        };
        assertThat(Sha256.hex(Channels.newChannel(uneven))).as("%d bytes, streamed", bytes.length).isEqualTo(jdk);
    }
}
