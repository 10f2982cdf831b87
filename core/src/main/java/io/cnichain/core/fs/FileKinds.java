package io.cnichain.core.fs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** Names what a special file is, for messages: FIFOs, sockets and devices never become configurations. */
final class FileKinds
{
    private FileKinds() {}

    static String describe(Path containerPath)
    {
        try {
            Object mode = Files.getAttribute(containerPath, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            int type = ((Integer) mode) & 0170000;
            return switch (type) {
                case 0010000 -> "a FIFO";
                case 0140000 -> "a socket";
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                default -> "a special file";
            };
        }
        catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "a special file";
        }
    }
}
