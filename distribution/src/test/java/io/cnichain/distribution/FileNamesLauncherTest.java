package io.cnichain.distribution;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Names and contents are bytes. File names: Through the launcher, with the environment an image gives (no locale at all): a name with an
 * accented letter is a name like any other, and a name that is not valid UTF-8 is reported, and holds readiness back
 * when the runtime may load it before the file we patch.
 */
@ExtendWith(TempNodeExtension.class)
class FileNamesLauncherTest
{
    /** As in the image: no LANG, LC_ALL or LC_CTYPE (the JVM would decode names as ASCII). */
    static Map<String, String> noLocale()
    {
        Map<String, String> env = new HashMap<>();
        env.put("LANG", null);
        env.put("LC_ALL", null);
        env.put("LC_CTYPE", null);
        return env;
    }

    @Test
    void aNameThatIsNotAsciiIsANameLikeAnyOther(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("README-é.txt", "notes");
        node.write("20-réseau.conflist", TestNode.CALICO.replace("k8s-pod-network", "second"));

        for (String command : new String[] {"detect", "install", "uninstall"}) {
            RealLauncher.Run run = RealLauncher.run(node, noLocale(), command);
            assertThat(run.code()).as(run.toString()).isZero();
            assertThat(run.out()).doesNotContain("InvalidPathException").doesNotContain("Exception");
        }
        assertThat(node.read("20-réseau.conflist")).doesNotContain("linkerd-cni");
    }

    /** A locale that names UTF-8 but is not installed: the C library falls back to C, which is ASCII, unless the launcher sees to it. */
    @Test
    void aUtf8LocaleThatIsNotInstalledChangesNothing(TestNode node)
    {
        node.write("10-réseau.conflist", TestNode.CALICO.replace("k8s-pod-network", "réseau"));
        Map<String, String> env = noLocale();
        env.put("LANG", "xx_XX.UTF-8");

        RealLauncher.Run install = RealLauncher.run(node, env, "install");

        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(install.out()).contains("Created CNI config /etc/cni/net.d/10-réseau.conflist").doesNotContain("File names are read as");
        assertThat(node.read("10-réseau.conflist")).contains("linkerd-cni");
        assertThat(RealLauncher.run(node, env, "uninstall").code()).isZero();
        assertThat(node.read("10-réseau.conflist")).doesNotContain("linkerd-cni");
    }

    @Test
    void bytesThatAreNotUtf8InAConfigurationComeBackAsTheyWere(TestNode node)
            throws Exception
    {
        // "name":"caf\xe9": before, install and uninstall wrote it back as the three bytes of U+FFFD.
        byte[] original = ("{\"cniVersion\":\"1.0.0\",\"name\":\"caf\u0000\",\"plugins\":[{\"type\":\"calico\"}]}\n")
                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        int at = new String(original, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf('\u0000');
        original[at] = (byte) 0xe9;
        java.nio.file.Path file = node.confDir().resolve("10-calico.conflist");
        java.nio.file.Files.write(file, original);

        RealLauncher.Run install = RealLauncher.run(node, noLocale(), "install");
        assertThat(install.code()).as(install.toString()).isZero();
        byte[] patched = java.nio.file.Files.readAllBytes(file);
        assertThat(new String(patched, java.nio.charset.StandardCharsets.ISO_8859_1)).contains("caf\u00e9\"").doesNotContain("caf\u00ef\u00bf\u00bd")
                .contains("linkerd-cni");

        RealLauncher.Run uninstall = RealLauncher.run(node, noLocale(), "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(java.nio.file.Files.readAllBytes(file)).isEqualTo(original);
    }

    @Test
    void aNameThatIsNotValidUtf8AndSortsFirstIsReportedAndHoldsReadinessBack(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        // 05-caf\xe9.conflist: the runtime's first file by byte order, which no Java string names.
        Process touch = new ProcessBuilder("sh", "-c", "touch \"$(printf '05-caf\\351.conflist')\"").directory(node.confDir().toFile()).start();
        assertThat(touch.waitFor()).isZero();

        RealLauncher.Run detect = RealLauncher.run(node, noLocale(), "detect");
        assertThat(detect.out()).contains("/etc/cni/net.d/05-caf\\xe9.conflist has a name the agent cannot open (its bytes are not valid UTF-8) and "
                + "sorts before the effective configuration: the runtime may load it, and we cannot tell whether it carries our entry; rename it");
        assertThat(detect.code()).as(detect.toString()).isEqualTo(1);

        RealLauncher.Run install = RealLauncher.run(node, noLocale(), "install");
        assertThat(install.out()).contains("05-caf\\xe9.conflist has a name the agent cannot open");
        assertThat(install.code()).as(install.toString()).isNotZero();
    }
}
