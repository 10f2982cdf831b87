package io.cnichain.cli.logging;

import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** An SLF4J logger writing through {@link ConsoleLogging}. */
final class ConsoleLogger
        extends LegacyAbstractLogger
{
    /**
     * pf4j reports every step and every failure itself, often with a stack trace; the plugin loader reports each
     * jar once, in one line, so pf4j's own lines are debug lines here.
     */
    private static final String DEMOTED_PREFIX = "org.pf4j.";

    private final boolean demoted;

    ConsoleLogger(String name)
    {
        this.name = name;
        this.demoted = name.startsWith(DEMOTED_PREFIX);
    }

    private Level level(Level level)
    {
        return demoted && level.toInt() > Level.DEBUG.toInt() ? Level.DEBUG : level;
    }

    @Override
    public boolean isTraceEnabled()
    {
        return ConsoleLogging.enabled(Level.TRACE);
    }

    @Override
    public boolean isDebugEnabled()
    {
        return ConsoleLogging.enabled(Level.DEBUG);
    }

    @Override
    public boolean isInfoEnabled()
    {
        return ConsoleLogging.enabled(level(Level.INFO));
    }

    @Override
    public boolean isWarnEnabled()
    {
        return ConsoleLogging.enabled(level(Level.WARN));
    }

    @Override
    public boolean isErrorEnabled()
    {
        return ConsoleLogging.enabled(level(Level.ERROR));
    }

    @Override
    protected String getFullyQualifiedCallerName()
    {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments, Throwable throwable)
    {
        ConsoleLogging.emit(level(level), name, MessageFormatter.basicArrayFormat(pattern, arguments), throwable);
    }
}
