package io.cnichain.bench;

import java.nio.file.Path;

/** The agent's image under podman (filled in once the image lands). */
final class ImageProgram
{
    private ImageProgram() {}

    static Program load(Path tar)
    {
        throw new UnsupportedOperationException("image mode: not yet");
    }
}
