package io.cnichain.core.config;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;

import java.util.List;
import java.util.Map;

/** The configuration's errors: each names its source (a file and key, an environment variable or a flag). */
final class ConfigErrors
{
    private ConfigErrors() {}

    /**
     * @param source where the value came from, such as {@code --conf-dir}
     * @param reason what is wrong with it
     * @return the error, {@link ErrorCode#BAD_CONFIG} (exit 2)
     */
    static CniChainException bad(String source, String reason)
    {
        return new CniChainException(ErrorCode.BAD_CONFIG, source + ": " + reason);
    }

    /** The value in single quotes, control characters escaped so that the error stays on one line. */
    static String quoted(String value)
    {
        StringBuilder text = new StringBuilder("'");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '\n' -> text.append("\\n");
                case '\r' -> text.append("\\r");
                case '\t' -> text.append("\\t");
                default -> {
                    if (Character.isISOControl(c)) {
                        text.append(String.format("\\x%02x", (int) c));
                    }
                    else {
                        text.append(c);
                    }
                }
            }
        }
        return text.append('\'').toString();
    }

    /** What a YAML value is, for "must be a ..., not a ..." messages. */
    static String kind(Object value)
    {
        if (value instanceof List<?>) {
            return "list";
        }
        if (value instanceof Map<?, ?>) {
            return "mapping";
        }
        return "single value";
    }
}
