package io.cnichain.core.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * SHA-256 (FIPS 180-4), for the digests the agent keeps: its configuration file's, the binaries' it copied and its own
 * writes'.
 * <p>
 * Written out instead of {@code MessageDigest.getInstance("SHA-256")}: the JDK's look-up initialises the security
 * providers (it reads {@code java.security} and registers each provider's services), work every start would do in
 * the interpreter, ahead of the first patch. {@code Sha256Test} checks it against the JDK's on inputs around every block
 * boundary.
 */
public final class Sha256
{
    private static final int[] K = {
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
            0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
            0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
            0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
            0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
            0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
            0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

    private Sha256() {}

    /** @return the digest of {@code bytes} in lower-case hex, 64 characters */
    public static String hex(byte[] bytes)
    {
        int[] h = initial();
        int[] w = new int[64];
        int whole = bytes.length / 64 * 64;
        for (int offset = 0; offset < whole; offset += 64) {
            block(h, w, bytes, offset);
        }
        return finish(h, w, bytes, whole, bytes.length);
    }

    /**
     * The digest of all a channel reads, 64 KiB at a time: a binary of any size is never held whole.
     *
     * @return the digest in lower-case hex, 64 characters
     */
    public static String hex(ReadableByteChannel in)
            throws IOException
    {
        int[] h = initial();
        int[] w = new int[64];
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        long length = 0;
        while (in.read(buffer) >= 0) {
            buffer.flip();
            for (; buffer.remaining() >= 64; buffer.position(buffer.position() + 64), length += 64) {
                block(h, w, buffer.array(), buffer.position());
            }
            buffer.compact();
        }
        byte[] rest = new byte[buffer.position()];
        buffer.flip().get(rest);
        return finish(h, w, rest, 0, length + rest.length);
    }

    private static int[] initial()
    {
        return new int[] {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    }

    /**
     * The message's last bytes ({@code from} to the end of {@code rest}), a 1 bit, zeros, and the message's length in bits
     * as 64 bits: one or two blocks of their own.
     */
    private static String finish(int[] h, int[] w, byte[] rest, int from, long length)
    {
        int count = rest.length - from;
        byte[] tail = new byte[count + 9 <= 64 ? 64 : 128];
        System.arraycopy(rest, from, tail, 0, count);
        tail[count] = (byte) 0x80;
        long bits = length * 8;
        for (int i = 0; i < 8; i++) {
            tail[tail.length - 1 - i] = (byte) (bits >>> (8 * i));
        }
        for (int offset = 0; offset < tail.length; offset += 64) {
            block(h, w, tail, offset);
        }
        return text(h);
    }

    private static void block(int[] h, int[] w, byte[] bytes, int offset)
    {
        for (int t = 0; t < 16; t++) {
            w[t] = word(bytes, offset + t * 4);
        }
        compress(h, w);
    }

    private static String text(int[] h)
    {
        char[] text = new char[64];
        for (int i = 0; i < 8; i++) {
            for (int j = 0; j < 8; j++) {
                text[i * 8 + j] = Character.forDigit((h[i] >>> (28 - 4 * j)) & 0xf, 16);
            }
        }
        return new String(text);
    }

    private static int word(byte[] bytes, int at)
    {
        return (bytes[at] & 0xff) << 24 | (bytes[at + 1] & 0xff) << 16 | (bytes[at + 2] & 0xff) << 8 | (bytes[at + 3] & 0xff);
    }

    private static void compress(int[] h, int[] w)
    {
        for (int t = 16; t < 64; t++) {
            int s0 = Integer.rotateRight(w[t - 15], 7) ^ Integer.rotateRight(w[t - 15], 18) ^ (w[t - 15] >>> 3);
            int s1 = Integer.rotateRight(w[t - 2], 17) ^ Integer.rotateRight(w[t - 2], 19) ^ (w[t - 2] >>> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        int a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
        for (int t = 0; t < 64; t++) {
            int sum1 = Integer.rotateRight(e, 6) ^ Integer.rotateRight(e, 11) ^ Integer.rotateRight(e, 25);
            int choice = (e & f) ^ (~e & g);
            int t1 = k + sum1 + choice + K[t] + w[t];
            int sum0 = Integer.rotateRight(a, 2) ^ Integer.rotateRight(a, 13) ^ Integer.rotateRight(a, 22);
            int majority = (a & b) ^ (a & c) ^ (b & c);
            int t2 = sum0 + majority;
            k = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        h[0] += a;
        h[1] += b;
        h[2] += c;
        h[3] += d;
        h[4] += e;
        h[5] += f;
        h[6] += g;
        h[7] += k;
    }
}
