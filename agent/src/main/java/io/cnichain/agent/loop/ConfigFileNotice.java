package io.cnichain.agent.loop;

import io.cnichain.core.CniChainException;
import io.cnichain.core.config.AgentConfig;
import io.cnichain.core.config.ConfigDigest;
import io.cnichain.core.fs.PodVolumeFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The agent keeps the configuration it started with: every setting shapes what is already on the node, so a change
 * under a running agent would leave half of the old and half of the new, while a new pod applies all of it cleanly. A
 * ConfigMap edited in place still reaches the pod's volume; that is said, once, so the operator knows a restart is owed.
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
        this.file = file;
        this.startDigest = startDigest;
    }

    static Optional<ConfigFileNotice> of(AgentConfig config)
    {
        if (config.configFile().isEmpty() || config.configDigest().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new ConfigFileNotice(config.configFile().get(), config.configDigest().get()));
    }

    Path directory()
    {
        return file.toAbsolutePath().normalize().getParent();
    }

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

    String describe()
    {
        return change.map(why -> "configuration: " + file + " " + why + " since start; a restart applies it").orElse("");
    }

    int changedGauge()
    {
        return change.isPresent() ? 1 : 0;
    }
}
