package io.cnichain.core.config;

import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * @param level   trace, debug, info, warn or error
 * @param format  text or json
 * @param notices what loading the configuration has to say: it comes before the level and the format are known, so it
 *                is said by {@link #sayNotices()} once they are set
 */
public record LogSettings(String level, String format, List<Notice> notices)
{
    public LogSettings
    {
        requireNonNull(level, "level is null");
        requireNonNull(format, "format is null");
        notices = List.copyOf(notices);
    }

    public record Notice(Level level, String message)
    {
        public Notice
        {
            requireNonNull(level, "level is null");
            requireNonNull(message, "message is null");
        }
    }

    public void sayNotices()
    {
        notices.forEach(notice -> LoggerFactory.getLogger(ConfigLoader.class).atLevel(notice.level()).log(notice.message()));
    }
}
