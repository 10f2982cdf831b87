package io.cnichain.core.logcapture;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The SLF4J backend of the core's own tests (the core ships none): every line is kept, as {@code LEVEL message},
 * so a test can check what the engine said. Lines come from every thread; {@link #clear()} before the step.
 */
public final class CapturedLog
        implements SLF4JServiceProvider
{
    private static final List<String> LINES = new CopyOnWriteArrayList<>();

    private final ILoggerFactory factory = CapturingLogger::new;
    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new NOPMDCAdapter();

    public static void clear()
    {
        LINES.clear();
    }

    /** @return the lines logged since the last {@link #clear()}, each {@code LEVEL message} */
    public static List<String> lines()
    {
        return List.copyOf(LINES);
    }

    @Override
    public ILoggerFactory getLoggerFactory()
    {
        return factory;
    }

    @Override
    public IMarkerFactory getMarkerFactory()
    {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter()
    {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion()
    {
        return "2.0.99";
    }

    @Override
    public void initialize() {}

    private static final class CapturingLogger
            extends LegacyAbstractLogger
    {
        CapturingLogger(String name)
        {
            this.name = name;
        }

        @Override
        public boolean isTraceEnabled()
        {
            return false;
        }

        @Override
        public boolean isDebugEnabled()
        {
            return true;
        }

        @Override
        public boolean isInfoEnabled()
        {
            return true;
        }

        @Override
        public boolean isWarnEnabled()
        {
            return true;
        }

        @Override
        public boolean isErrorEnabled()
        {
            return true;
        }

        @Override
        protected String getFullyQualifiedCallerName()
        {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments, Throwable throwable)
        {
            if (!name.startsWith("org.pf4j.")) {
                LINES.add(level + " " + MessageFormatter.basicArrayFormat(pattern, arguments) + (throwable == null ? "" : ": " + throwable));
            }
        }
    }
}
