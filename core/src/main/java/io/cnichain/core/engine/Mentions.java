package io.cnichain.core.engine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Whether a file we will not parse (larger than the limit, unreadable) may run our plugin: it can only if it holds
 * the plugin's type as a JSON string. Read in chunks, never whole; anything that cannot be read to the end, or is
 * larger than a scan is worth, may.
 */
final class Mentions
{
    /** Beyond this a file is not scanned: it may mention anything. */
    static final long MAX_SCAN_BYTES = 64L * 1024 * 1024;

    private Mentions() {}

    static boolean mayMention(Path containerPath, String type)
    {
        byte[] needle = ("\"" + type + "\"").getBytes(StandardCharsets.UTF_8);
        try {
            if (!Files.isRegularFile(containerPath, LinkOption.NOFOLLOW_LINKS) || Files.size(containerPath) > MAX_SCAN_BYTES) {
                return true;
            }
            try (InputStream in = Files.newInputStream(containerPath, LinkOption.NOFOLLOW_LINKS)) {
                byte[] buffer = new byte[64 * 1024];
                byte[] window = new byte[buffer.length + needle.length];
                int carried = 0;
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    System.arraycopy(buffer, 0, window, carried, n);
                    int length = carried + n;
                    if (indexOf(window, length, needle) >= 0) {
                        return true;
                    }
                    // Keep the tail, so a needle split across two reads is still found.
                    carried = Math.min(needle.length - 1, length);
                    System.arraycopy(window, length - carried, window, 0, carried);
                }
                return false;
            }
        }
        catch (IOException e) {
            return true;
        }
    }

    private static int indexOf(byte[] haystack, int length, byte[] needle)
    {
        outer:
        for (int i = 0; i + needle.length <= length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
