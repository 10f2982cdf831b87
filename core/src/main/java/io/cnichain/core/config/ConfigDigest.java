package io.cnichain.core.config;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The SHA-256 of the configuration file's bytes: what the agent started with, to tell when the file changed. */
public final class ConfigDigest
{
    /** The most bytes a configuration file may have. */
    public static final long MAX_BYTES = YamlDocument.MAX_BYTES;

    private ConfigDigest() {}

    public static String of(byte[] bytes)
    {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
