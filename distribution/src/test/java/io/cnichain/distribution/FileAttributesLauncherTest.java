package io.cnichain.distribution;

import io.cnichain.testkit.NeedsRoot;
import io.cnichain.testkit.NeedsRootExtension;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the primary's owner put on its file beyond bytes and mode survives our patch and our uninstall: its POSIX ACL
 * and its {@code security.*}, {@code trusted.*} and {@code user.*} attributes. What the kernel does not let the agent
 * copy is said, naming the attribute and the reason. The attributes are set and read with the attr, acl and libcap
 * packages' tools. Root: only root may set {@code trusted.*} and {@code security.*} attributes.
 */
@NeedsRoot(commands = {"setfacl", "getfacl", "setfattr", "getfattr", "setcap", "setpriv"})
@ExtendWith(TempNodeExtension.class)
class FileAttributesLauncherTest
{
    @Test
    void patchAndUninstallKeepTheAclAndEveryExtendedAttribute(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        String original = Files.readString(file);
        NeedsRootExtension.run("setfacl", "-m", "u:nobody:r--", file.toString());
        NeedsRootExtension.run("setfattr", "-n", "trusted.cni-test", "-v", "kept-by-trusted", file.toString());
        NeedsRootExtension.run("setfattr", "-n", "security.cni-test", "-v", "kept-by-security", file.toString());
        NeedsRootExtension.run("setfattr", "-n", "user.owner-note", "-v", "kept-by-user", file.toString());
        String attributes = attributes(file);
        assertThat(attributes).contains("system.posix_acl_access", "trusted.cni-test", "security.cni-test", "user.owner-note");

        RealLauncher.Run install = RealLauncher.run(node, "install");
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(Files.readString(file)).contains("linkerd-cni");
        assertThat(attributes(file)).isEqualTo(attributes);
        assertThat(install.out()).doesNotContain("lacks extended attributes");

        RealLauncher.Run uninstall = RealLauncher.run(node, "uninstall");
        assertThat(uninstall.code()).as(uninstall.toString()).isZero();
        assertThat(Files.readString(file)).isEqualTo(original);
        assertThat(attributes(file)).isEqualTo(attributes);
        assertThat(NeedsRootExtension.run("getfacl", "-c", "-p", file.toString())).contains("user:nobody:r--");
    }

    /** Without CAP_SETFCAP no process may set a file capability: the patch goes on, and says what it could not keep. */
    @Test
    void anAttributeTheKernelDoesNotLetUsSetIsNamedWithTheReason(TestNode node)
            throws Exception
    {
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        NeedsRootExtension.run("setcap", "cap_net_raw+ep", file.toString());
        NeedsRootExtension.run("setfattr", "-n", "user.owner-note", "-v", "kept", file.toString());

        RealLauncher.Run install = RealLauncher.run(List.of("setpriv", "--bounding-set", "-setfcap", "--inh-caps", "-setfcap", "--"), node, Map.of(), "install");

        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(Files.readString(file)).contains("linkerd-cni");
        assertThat(install.out()).contains("/etc/cni/net.d/10-calico.conflist: the new version lacks extended attributes the old one had: "
                + "security.capability (EPERM: not permitted); kept: user.owner-note");
        assertThat(attributes(file)).contains("user.owner-note").doesNotContain("security.capability");
    }

    /** Every extended attribute, as getfattr dumps them, in name order. */
    private static String attributes(Path file)
            throws Exception
    {
        return NeedsRootExtension.run("getfattr", "--absolute-names", "-d", "-m", "-", "-e", "hex", file.toString()).lines()
                .filter(line -> !line.startsWith("#")).sorted().reduce("", (a, b) -> a + b + "\n");
    }
}
