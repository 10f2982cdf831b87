package io.cnichain.core.config;

import io.cnichain.core.fs.Sha256;

/** The SHA-256 of the configuration file's bytes: what the agent started with, to tell when the file changed. */
public final class ConfigDigest
{
    /** The most bytes a configuration file may have. */
    public static final long MAX_BYTES = YamlDocument.MAX_BYTES;

    private ConfigDigest() {}

    public static String of(byte[] bytes)
    {
        return Sha256.hex(bytes);
    }
}
