package io.cnichain.agent.loop;

import io.cnichain.core.CniChainException;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ConfigDigest;
import io.cnichain.core.fs.PodVolumeFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The agent keeps the configuration it started with. Every setting shapes what is already on the node (the entry, the
 * names, the paths), so a change made under a running agent would leave half of the old and half of the new; a new pod
 * applies all of it at once, and cleanly: the Helm chart's {@code checksum/config} and the kustomize ConfigMap's hash
 * roll the pods when the file changes.
 *
 * <p>A ConfigMap edited in place still reaches a running pod: the kubelet swaps the volume's {@code ..data} link and
 * deletes the old files. The file is read again on every event in its directory; when it no longer holds what the agent
 * started with, that is said once in the log, in {@code /readyz}'s detail and as {@value #METRIC_NAME} 1, so the
 * operator knows a restart is owed. Nothing else changes: the agent goes on patching with what it has (it holds its
 * configuration in memory and never reads the old file again).
 */
final class ConfigFileNotice
{
    static final String METRIC_NAME = "cnichain_config_changed_since_start";
    static final String METRIC_HELP = "1 when the configuration file no longer holds what the agent started with: a restart applies it";

    private static final Logger log = LoggerFactory.getLogger(ConfigFileNotice.class);

    private final Path file;
    private final String startDigest;
    private volatile Optional<String> change = Optional.empty();

    private ConfigFileNotice(Path file, String startDigest)
    {
        this.file = requireNonNull(file, "file is null");
        this.startDigest = requireNonNull(startDigest, "startDigest is null");
    }

    /** @return the notice for the agent's configuration file; empty when it started without one */
    static Optional<ConfigFileNotice> of(AgentConfig config)
    {
        if (config.configFile().isEmpty() || config.configDigest().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new ConfigFileNotice(config.configFile().get(), config.configDigest().get()));
    }

    /** @return the directory to watch: the pod volume that holds the file */
    Path directory()
    {
        return file.toAbsolutePath().normalize().getParent();
    }

    /** Reads the file again and says so, once, when it changed since start (or back, when it holds it again). */
    void check()
    {
        Optional<String> now;
        try {
            String digest = ConfigDigest.of(PodVolumeFiles.read(file, ConfigDigest.MAX_BYTES));
            now = digest.equals(startDigest) ? Optional.empty() : Optional.of("holds another configuration");
        }
        catch (CniChainException e) {
            now = Optional.of(e.reason());
        }
        Optional<String> before = change;
        change = now;
        if (now.isPresent() && before.isEmpty()) {
            log.warn("{}: {} since this agent started; it keeps its start-up configuration until restarted (restart the pod to apply it: "
                    + "the Helm chart and the kustomize ConfigMap's hash roll the DaemonSet when the file changes)", file, now.get());
        }
        else if (now.isEmpty() && before.isPresent()) {
            log.info("{}: holds the start-up configuration again; no restart owed", file);
        }
    }

    /** @return for {@code /readyz}'s detail: nothing while the file holds what the agent started with */
    String describe()
    {
        return change.map(why -> "configuration: " + file + " " + why + " since start; a restart applies it").orElse("");
    }

    int changedGauge()
    {
        return change.isPresent() ? 1 : 0;
    }
}
