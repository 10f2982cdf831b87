package io.cnichain.core.adapters;

import io.cnichain.spi.AdapterException;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniConfig;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import io.cnichain.spi.NodeView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Stands between the core and one adapter, built-in or from a plugin jar, so that no adapter can take the
 * agent down: every call runs with a time limit (on an adapter-call thread, {@link AdapterCalls}; the built-in adapters
 * alone run on the caller's thread, untimed, {@link AdapterCalls#onCallingThread}); an adapter that throws anything but an
 * {@link AdapterException}, returns {@code null} or does not return in time is disabled, reported once (one
 * log line naming the adapter, where it came from and why), and from then on every call fails at once with an
 * {@link AdapterException}, which the selector and the engine already treat as that adapter's failure. A built-in
 * adapter's {@link OutOfMemoryError} is the agent's own, and passes through: the pass ends as on any other.
 * Adapters only ever see a {@link ReadOnlyNodeView}.
 *
 * <p>An {@link AdapterException} is the adapter reporting a problem it understood (an unusable setting, a file
 * that does not resolve); it passes through and does not disable the adapter.
 */
public final class GuardedAdapter
        implements CniPlatformAdapter
{
    private static final Logger log = LoggerFactory.getLogger(GuardedAdapter.class);
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]*");

    private final CniPlatformAdapter delegate;
    private final String origin;
    private final Duration limit;
    /** A built-in adapter's calls run on the caller's thread, untimed ({@link AdapterCalls#onCallingThread}). */
    private final boolean onCallingThread;
    private final ClassLoader classLoader;
    private final String name;
    private final String description;
    private final Set<String> settingNames;
    private final AtomicReference<String> disabled = new AtomicReference<>();

    private GuardedAdapter(CniPlatformAdapter delegate, String origin, Duration limit, boolean onCallingThread, String name, String description,
            Set<String> settingNames, Optional<String> disabledReason)
    {
        this.delegate = delegate;
        this.origin = origin;
        this.limit = limit;
        this.onCallingThread = onCallingThread;
        this.classLoader = delegate.getClass().getClassLoader();
        this.name = name;
        this.description = description;
        this.settingNames = settingNames;
        if (disabledReason.isPresent()) {
            disable(disabledReason.get());
        }
    }

    /**
     * Guards an adapter. Its name, description and setting names are asked once, here, under the guard: a
     * name is what every message needs, so an adapter without a usable one is refused; one whose description
     * or setting names fail is kept, disabled.
     *
     * @param delegate the adapter
     * @param origin   where it came from, for messages ("plugin jar /opt/cni-chain/plugins/x.jar")
     * @param limit    how long one call may take
     * @return the guarded adapter
     * @throws AdapterException with {@link AdapterException.Code#ADAPTER_FAILURE} when the adapter has no usable name
     */
    public static GuardedAdapter guard(CniPlatformAdapter delegate, String origin, Duration limit)
    {
        return guard(delegate, origin, limit, false);
    }

    /**
     * {@link #guard(CniPlatformAdapter, String, Duration)}, for a built-in adapter when {@code onCallingThread}: its calls
     * then run on the caller's thread, untimed, and are otherwise guarded the same.
     */
    public static GuardedAdapter guard(CniPlatformAdapter delegate, String origin, Duration limit, boolean onCallingThread)
    {
        requireNonNull(delegate, "delegate is null");
        requireNonNull(origin, "origin is null");
        requireNonNull(limit, "limit is null");
        if (delegate instanceof GuardedAdapter guarded) {
            return guarded;
        }
        ClassLoader loader = delegate.getClass().getClassLoader();
        String className = delegate.getClass().getName();
        String name;
        try {
            name = invoke(delegate::name, limit, loader, onCallingThread);
        }
        catch (AdapterCalls.CallFailure e) {
            throw new AdapterException(AdapterException.Code.ADAPTER_FAILURE, "adapter class " + className + " (" + origin + "): name() " + e.getMessage());
        }
        if (name == null || !NAME.matcher(name).matches()) {
            throw new AdapterException(AdapterException.Code.ADAPTER_FAILURE, "adapter class " + className + " (" + origin + "): name() returned "
                    + (name == null ? "null" : "'" + name + "'") + ", not a name of lower-case letters, digits and dashes");
        }
        Optional<String> failure = Optional.empty();
        String description = name;
        Set<String> settingNames = Set.of();
        try {
            description = Optional.ofNullable(invoke(delegate::description, limit, loader, onCallingThread)).orElse(name);
            settingNames = requireNonNullResult(invoke(() -> copyOrNull(delegate.settingNames()), limit, loader, onCallingThread), "settingNames");
        }
        catch (AdapterCalls.CallFailure e) {
            failure = Optional.of("while loading: " + e.getMessage());
        }
        catch (NullPointerException e) {
            failure = Optional.of("while loading: " + e.getMessage());
        }
        return new GuardedAdapter(delegate, origin, limit, onCallingThread, name, description, settingNames, failure);
    }

    private static <T> T invoke(Callable<T> body, Duration limit, ClassLoader loader, boolean onCallingThread)
            throws AdapterCalls.CallFailure
    {
        return onCallingThread ? AdapterCalls.callOnCallingThread(body, loader) : AdapterCalls.call(body, limit, loader);
    }

    private static <T> T requireNonNullResult(T value, String method)
    {
        if (value == null) {
            throw new NullPointerException(method + "() returned null (or a set holding null)");
        }
        return value;
    }

    /** The adapter's own class, for messages. */
    public Class<?> adapterClass()
    {
        return delegate.getClass();
    }

    /** Why this adapter is disabled, when it is. */
    public Optional<String> disabledReason()
    {
        return Optional.ofNullable(disabled.get());
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public String description()
    {
        return description;
    }

    @Override
    public Set<String> settingNames()
    {
        return settingNames;
    }

    @Override
    public Detection detect(NodeView node, AdapterSettings settings)
    {
        NodeView view = ReadOnlyNodeView.of(node);
        return call("detect", () -> delegate.detect(view, settings));
    }

    @Override
    public List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings)
    {
        NodeView view = ReadOnlyNodeView.of(node);
        return call("authoritativeConfigs", () -> ourTargets(view, delegate.authoritativeConfigs(view, settings)));
    }

    @Override
    public Set<Path> watchDirectories(NodeView node, AdapterSettings settings)
    {
        NodeView view = ReadOnlyNodeView.of(node);
        return call("watchDirectories", () -> ourPaths(delegate.watchDirectories(view, settings)));
    }

    @Override
    public Optional<String> incompleteReason(ConfigTarget target, CniConfig config, AdapterSettings settings)
    {
        return call("incompleteReason", () -> delegate.incompleteReason(target, config, settings));
    }

    @Override
    public List<String> warnings(NodeView node, AdapterSettings settings)
    {
        NodeView view = ReadOnlyNodeView.of(node);
        return call("warnings", () -> copyOrNull(delegate.warnings(view, settings)));
    }

    @Override
    public Optional<String> fightHint()
    {
        return call("fightHint", delegate::fightHint);
    }

    /**
     * One guarded call: the body calls the adapter and makes its answer ours (collections copied, inside the call, so
     * that a list whose {@code size()} never returns hangs the call, which has a time limit, not the engine).
     *
     * @param method the adapter's method, for messages
     */
    private <T> T call(String method, Callable<T> body)
    {
        String reason = disabled.get();
        if (reason != null) {
            throw disabledException(reason);
        }
        T result;
        try {
            result = onCallingThread ? AdapterCalls.callOnCallingThread(body, classLoader)
                    : AdapterCalls.call(body, limit, classLoader, () -> disable(method + "() did not return within " + AdapterCalls.describe(limit)));
        }
        catch (AdapterCalls.CallFailure e) {
            if (e.error() instanceof AdapterException adapterException) {
                throw adapterException;
            }
            if (onCallingThread && e.error() instanceof OutOfMemoryError outOfHeap) {
                // A built-in adapter is the agent's own code: its heap is the agent's. The pass ends as on any other
                // OutOfMemoryError, and the agent restarts with a fresh heap, instead of deciding without this adapter.
                throw outOfHeap;
            }
            throw disabledException(disable(method + "() " + e.getMessage()));
        }
        if (result == null) {
            throw disabledException(disable(method + "() returned null"));
        }
        return result;
    }

    /** Disables the adapter; the first reason wins and is the only one logged. */
    private String disable(String reason)
    {
        if (disabled.compareAndSet(null, reason)) {
            log.error("Adapter {} ({}) disabled: {}; the agent goes on without it", name, origin, reason);
            return reason;
        }
        return disabled.get();
    }

    private AdapterException disabledException(String reason)
    {
        return new AdapterException(AdapterException.Code.ADAPTER_FAILURE, "is disabled: " + reason);
    }

    @Override
    public String toString()
    {
        return name + " (" + origin + ")";
    }

    private static Set<String> copyOrNull(Set<String> names)
    {
        return names == null ? null : Set.copyOf(names);
    }

    private static List<String> copyOrNull(List<String> lines)
    {
        return lines == null ? null : List.copyOf(lines);
    }

    /**
     * Every target looked up again in the node view, so that it carries our resolution of the path, checked against the
     * allowed roots, whatever the adapter built; paths made the default file system's.
     */
    private static List<ConfigTarget> ourTargets(NodeView node, List<ConfigTarget> targets)
    {
        if (targets == null) {
            return null;
        }
        List<ConfigTarget> ours = new ArrayList<>();
        for (ConfigTarget target : List.copyOf(targets)) {
            ConfigEntry entry = node.inspect(Path.of(target.entry().path().toString()));
            ours.add(new ConfigTarget(entry, target.reason()));
        }
        return List.copyOf(ours);
    }

    private static Set<Path> ourPaths(Set<Path> paths)
    {
        if (paths == null) {
            return null;
        }
        Set<Path> ours = new LinkedHashSet<>();
        for (Path path : List.copyOf(paths)) {
            ours.add(Path.of(path.toString()));
        }
        return Set.copyOf(ours);
    }

}
