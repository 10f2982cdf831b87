package io.cnichain.example.aws;

import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniConfig;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import io.cnichain.spi.NodeView;
import io.cnichain.spi.ParseResult;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The AWS VPC CNI (amazon-vpc-cni-k8s): its node agent, aws-node, writes {@code 10-aws.conflist} (network
 * {@code aws-cni}, plugins {@code aws-cni}, {@code egress-cni}, {@code portmap}) once its IP address manager is
 * healthy, and again on every start of aws-node, which drops any chained entry. Since release 1.12 it prepares the
 * file inside its own container and moves it into the configuration directory, so the change arrives as a file
 * moved into that directory, which the core watches already: there is no host directory to add to the watch, and
 * no temp name of aws-node's to ignore in the configuration directory.
 *
 * <p>{@code 10-aws.conflist} is named only while the runtime loads it: when another file sorts before it, the adapter
 * names nothing (the core patches the file the runtime loads in any case) and a warning says that aws-node's file
 * is not the one in use.
 */
public final class AwsVpcCniAdapter
        implements CniPlatformAdapter
{
    public static final String NAME = "aws-vpc-cni";
    public static final String CONF_FILE = "10-aws.conflist";
    public static final String NETWORK = "aws-cni";
    public static final String MAIN_PLUGIN = "aws-cni";
    public static final List<String> BINARIES = List.of("aws-cni", "egress-cni");

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public String description()
    {
        return "AWS VPC CNI (aws-node): " + CONF_FILE + ", network " + NETWORK;
    }

    @Override
    public Detection detect(NodeView node, AdapterSettings settings)
    {
        Detection.Builder detection = Detection.builder();
        Optional<ConfigEntry> conf = node.entry(CONF_FILE);
        if (conf.isPresent()) {
            detection.add(Detection.PLATFORM_FILE,
                    CONF_FILE + " present" + conf.flatMap(e -> config(node, e)).map(c -> " (network " + c.networkName() + ")").orElse(""));
        }
        List<String> binaries = BINARIES.stream().filter(node::hasBinary).toList();
        if (!binaries.isEmpty()) {
            detection.add(Detection.PLATFORM_BINARY, String.join(", ", binaries) + " in " + node.binDir());
        }
        Optional<ConfigEntry> effective = node.effectiveConfig();
        if (effective.isPresent() && !effective.get().name().equals(CONF_FILE)
                && config(node, effective.get()).map(c -> c.hasPluginType(MAIN_PLUGIN)).orElse(false)) {
            detection.add(Detection.HINT, "the effective configuration " + effective.get().name() + " chains the " + MAIN_PLUGIN + " plugin");
        }
        return detection.build();
    }

    @Override
    public List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings)
    {
        Optional<ConfigEntry> conf = node.entry(CONF_FILE);
        if (conf.isEmpty() || shadowedBy(node).isPresent()) {
            return List.of();
        }
        return List.of(ConfigTarget.of(conf.get(), "written by aws-node, the AWS VPC CNI's node agent"));
    }

    @Override
    public Optional<String> incompleteReason(ConfigTarget target, CniConfig config, AdapterSettings settings)
    {
        if (!config.hasPluginType(MAIN_PLUGIN)) {
            return Optional.of("it has no " + MAIN_PLUGIN + " plugin; aws-node always writes one first");
        }
        return Optional.empty();
    }

    @Override
    public Set<Path> watchDirectories(NodeView node, AdapterSettings settings)
    {
        // aws-node prepares the file in its own container, not on the host: nothing to add.
        return Set.of();
    }

    @Override
    public List<String> warnings(NodeView node, AdapterSettings settings)
    {
        return shadowedBy(node)
                .map(other -> List.of("the runtime loads " + other.name() + ", which sorts before " + CONF_FILE
                        + ": " + CONF_FILE + " is not in use, so it is left alone (the file the runtime loads is patched)"))
                .orElse(List.of());
    }

    /** Another configuration the runtime loads instead of ours, if there is one. */
    private static Optional<ConfigEntry> shadowedBy(NodeView node)
    {
        return node.effectiveConfig().filter(e -> !e.name().equals(CONF_FILE) && node.entry(CONF_FILE).isPresent());
    }

    private static Optional<CniConfig> config(NodeView node, ConfigEntry entry)
    {
        ParseResult result = node.parse(entry);
        return result.config();
    }
}
