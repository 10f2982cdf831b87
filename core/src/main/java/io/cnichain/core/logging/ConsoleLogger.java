package io.cnichain.core.logging;

import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** An SLF4J logger writing through {@link ConsoleLogging}. */
final class ConsoleLogger
        extends LegacyAbstractLogger
{
    ConsoleLogger(String name)
    {
        this.name = name;
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
        return ConsoleLogging.enabled(Level.INFO);
    }

    @Override
    public boolean isWarnEnabled()
    {
        return ConsoleLogging.enabled(Level.WARN);
    }

    @Override
    public boolean isErrorEnabled()
    {
        return ConsoleLogging.enabled(Level.ERROR);
    }

    @Override
    protected String getFullyQualifiedCallerName()
    {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments, Throwable throwable)
    {
        ConsoleLogging.emit(level, name, MessageFormatter.basicArrayFormat(pattern, arguments), throwable);
    }
}
