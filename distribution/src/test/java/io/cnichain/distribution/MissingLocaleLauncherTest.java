package io.cnichain.distribution;

import io.cnichain.testkit.NeedsRoot;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A system without the C.UTF-8 locale the launcher asks for (an old C library, or an image that does not carry it):
 * the launcher runs in a mount namespace of its own where {@code /usr/lib/locale} is empty, so the JVM is left with
 * ASCII for file names. The agent says so in one line, and a network name that is not ASCII takes nothing down.
 */
@NeedsRoot(commands = {"unshare", "mount"})
@ExtendWith(TempNodeExtension.class)
class MissingLocaleLauncherTest
{
    static final List<String> WITHOUT_LOCALES = List.of("unshare", "--mount", "--propagation", "private", "sh", "-c",
            "mount -t tmpfs tmpfs /usr/lib/locale && exec \"$@\"", "sh");

    @Test
    void withoutAUtf8LocaleTheAgentSaysSoAndANetworkNameThatIsNotAsciiTakesNothingDown(TestNode node)
    {
        node.write("10-calico.conflist", TestNode.CALICO.replace("k8s-pod-network", "réseau"));

        RealLauncher.Run install = RealLauncher.run(WITHOUT_LOCALES, node, FileNamesLauncherTest.noLocale(), "install");

        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.out()).contains("WARN  File names are read as US-ASCII, not UTF-8: the locale 'C.UTF-8' is not a UTF-8 locale installed here, "
                + "so a name that is not ASCII is reported, never opened; install the C.UTF-8 locale, which the launcher runs the JVM under")
                .doesNotContain("InvalidPathException");
        assertThat(node.read("10-calico.conflist")).contains("linkerd-cni");
    }

    @Test
    void aFileNameThatIsNotAsciiIsReportedAndNothingElseIsHeldUp(TestNode node)
    {
        node.write("10-réseau.conflist", TestNode.CALICO);
        node.write("20-cilium.conflist", TestNode.CILIUM);

        RealLauncher.Run install = RealLauncher.run(WITHOUT_LOCALES, node, FileNamesLauncherTest.noLocale(), "install");

        // Named as the JVM can print it here, in ASCII.
        assertThat(install.out()).contains("/etc/cni/net.d/10-r?seau.conflist has a name the agent cannot open (its bytes are not valid US-ASCII) and "
                + "sorts before the effective configuration").doesNotContain("InvalidPathException");
        assertThat(install.code()).as(install.toString()).isEqualTo(1);
        assertThat(node.read("20-cilium.conflist")).as("the rest is done").contains("linkerd-cni");
    }
}
