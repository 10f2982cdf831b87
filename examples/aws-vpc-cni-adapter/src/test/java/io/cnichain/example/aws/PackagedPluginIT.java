package io.cnichain.example.aws;

import io.cnichain.core.adapters.GuardedAdapter;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.testkit.PluginJars;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The jar this module packages, loaded by the agent's own plugin loader from a plugins directory: its descriptor,
 * its SPI range, its services file and its class loader are what the agent will see. Runs in integration-test,
 * after package has built the jar.
 */
@ExtendWith(TempNodeExtension.class)
class PackagedPluginIT
{
    @Test
    void thePackagedJarLoadsAsPluginAwsVpcCni(TestNode node)
    {
        LoadedAdapter aws = PluginJars.loadAdapter(PluginJars.packagedJar(), "aws-vpc-cni");

        assertThat(aws.pluginId()).contains("aws-vpc-cni");
        assertThat(((GuardedAdapter) aws.adapter()).adapterClass()).isNotSameAs(AwsVpcCniAdapter.class);

        node.binaries("aws-cni", "egress-cni", "portmap");
        node.write("10-aws.conflist", AwsVpcCniAdapterTest.AWS);
        assertThat(aws.adapter().detect(node.snapshot(), AdapterSettings.empty("aws-vpc-cni")).score()).isEqualTo(150);
        assertThat(aws.adapter().authoritativeConfigs(node.snapshot(), AdapterSettings.empty("aws-vpc-cni")))
                .extracting(ConfigTarget::path).containsExactly(Path.of("/etc/cni/net.d/10-aws.conflist"));
    }
}
