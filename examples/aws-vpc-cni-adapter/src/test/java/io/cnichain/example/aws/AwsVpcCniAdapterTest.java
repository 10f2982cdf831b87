package io.cnichain.example.aws;

import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniConfig;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The adapter on AWS node layouts, each test on a fresh temp node. The packaged jar loaded as a plugin is
 * {@link PackagedPluginIT}; with the real launcher, the distribution module's PluginLauncherTest.
 */
@ExtendWith(TempNodeExtension.class)
class AwsVpcCniAdapterTest
{
    static final String AWS = """
            {"cniVersion":"0.4.0","name":"aws-cni","disableCheck":true,"plugins":[{"name":"aws-cni","type":"aws-cni","vethPrefix":"eni","mtu":"9001"},\
            {"name":"egress-cni","type":"egress-cni","mtu":"9001","enabled":"false"},{"type":"portmap","capabilities":{"portMappings":true},"snat":true}]}""";

    AwsVpcCniAdapter adapter = new AwsVpcCniAdapter();

    @Test
    void theServicesFileNamesIt()
    {
        assertThat(AdapterRegistry.fromClassLoader(getClass().getClassLoader()).find("aws-vpc-cni")).isPresent();
    }

    @Test
    void recognisesAnAwsNodeAndPatches10AwsConflist(TestNode node)
    {
        node.binaries("aws-cni", "egress-cni", "portmap");
        node.write("10-aws.conflist", AWS);

        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name())).score()).isEqualTo(150);
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name())).evidence()).containsExactly("10-aws.conflist present (network aws-cni)",
                "aws-cni, egress-cni in /opt/cni/bin");
        List<ConfigTarget> targets = adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("aws-vpc-cni"));
        assertThat(targets).extracting(ConfigTarget::path).containsExactly(Path.of("/etc/cni/net.d/10-aws.conflist"));
        assertThat(adapter.warnings(node.snapshot(), AdapterSettings.empty(adapter.name()))).isEmpty();
        assertThat(adapter.watchDirectories(node.snapshot(), AdapterSettings.empty("aws-vpc-cni"))).isEmpty();
    }

    @Test
    void beforeAwsNodeHasWrittenItsFileThereIsNothingToPatch(TestNode node)
    {
        node.binaries("aws-cni", "egress-cni");
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name())).score()).isEqualTo(50);
        assertThat(adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("aws-vpc-cni"))).isEmpty();
    }

    @Test
    void aFileSortingFirstIsNotAwsNodesAndAWarningSaysSo(TestNode node)
    {
        node.write("05-other.conflist", TestNode.CILIUM);
        node.write("10-aws.conflist", AWS);
        assertThat(adapter.authoritativeConfigs(node.snapshot(), AdapterSettings.empty("aws-vpc-cni"))).isEmpty();
        assertThat(adapter.warnings(node.snapshot(), AdapterSettings.empty(adapter.name()))).containsExactly("the runtime loads 05-other.conflist, which sorts before 10-aws.conflist: "
                + "10-aws.conflist is not in use, so it is left alone (the file the runtime loads is patched)");
    }

    @Test
    void aFileWithoutTheAwsPluginIsNotFinished(TestNode node)
    {
        CniConfig partial = new CniConfig(CniConfig.Format.LIST, "aws-cni", Optional.of("0.4.0"), List.of("portmap"));
        CniConfig full = new CniConfig(CniConfig.Format.LIST, "aws-cni", Optional.of("0.4.0"), List.of("aws-cni", "egress-cni", "portmap"));
        node.write("10-aws.conflist", AWS);
        ConfigTarget target = ConfigTarget.of(node.snapshot().entry("10-aws.conflist").orElseThrow(), "test");
        assertThat(adapter.incompleteReason(target, partial, AdapterSettings.empty("aws-vpc-cni"))).contains("it has no aws-cni plugin; aws-node always writes one first");
        assertThat(adapter.incompleteReason(target, full, AdapterSettings.empty("aws-vpc-cni"))).isEmpty();
    }

    @Test
    void nothingOnAnotherPlatform(TestNode node)
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        assertThat(adapter.detect(node.snapshot(), AdapterSettings.empty(adapter.name())).matched()).isFalse();
    }
}
