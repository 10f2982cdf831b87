package io.cnichain.cli.logging;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The agent's one small SLF4J backend: no configuration files, text or JSON lines, level set at start.
 */
public final class ConsoleLoggerProvider
        implements SLF4JServiceProvider
{
    private final ConcurrentMap<String, Logger> loggers = new ConcurrentHashMap<>();
    private final ILoggerFactory factory = name -> loggers.computeIfAbsent(name, ConsoleLogger::new);
    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new NOPMDCAdapter();

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
}
