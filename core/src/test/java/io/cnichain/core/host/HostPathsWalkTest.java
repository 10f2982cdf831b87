package io.cnichain.core.host;

import io.cnichain.core.fs.linux.FileSystemCalls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static org.assertj.core.api.Assertions.assertThat;

/** The remembered walk answers as a fresh {@link HostPaths#withoutLinks(Path)} would, whatever changed on the way. */
class HostPathsWalkTest
{
    private static final Path CONF = Path.of("/etc/cni/net.d");

    @Test
    void aPlainPathStaysItselfAndAnAncestorReplacedByALinkIsSeen(@TempDir Path root)
            throws Exception
    {
        Files.createDirectories(root.resolve("etc/cni/net.d"));
        Files.createDirectories(root.resolve("var/lib/other/net.d"));
        HostPaths host = new HostPaths(root);
        HostPaths.Walk walk = host.walk(CONF, FileSystemCalls.get());
        assertThat(walk.now()).contains(CONF);
        assertThat(walk.now()).contains(CONF);

        // The directory on the way becomes a link: no name the walk visited is what it was.
        Files.move(root.resolve("etc/cni"), root.resolve("etc/cni.old"));
        Files.createSymbolicLink(root.resolve("etc/cni"), Path.of("/var/lib/other"));
        assertThat(walk.now()).contains(Path.of("/var/lib/other/net.d")).isEqualTo(host.withoutLinks(CONF));
    }

    @Test
    void aLinkRepointedIsSeenAndAnAbsoluteTargetStaysUnderTheHostRoot(@TempDir Path root)
            throws Exception
    {
        Files.createDirectories(root.resolve("var/lib/k3s/one/net.d"));
        Files.createDirectories(root.resolve("var/lib/k3s/two/net.d"));
        Files.createDirectories(root.resolve("etc"));
        Files.createSymbolicLink(root.resolve("etc/cni"), Path.of("/var/lib/k3s/one"));
        HostPaths host = new HostPaths(root);
        HostPaths.Walk walk = host.walk(CONF, FileSystemCalls.get());
        assertThat(walk.now()).contains(Path.of("/var/lib/k3s/one/net.d"));

        // Re-pointed as ln -sfn does: a new link renamed over the old one.
        Files.createSymbolicLink(root.resolve("etc/.swap"), Path.of("../var/lib/k3s/two"));
        Files.move(root.resolve("etc/.swap"), root.resolve("etc/cni"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        assertThat(walk.now()).contains(Path.of("/var/lib/k3s/two/net.d")).isEqualTo(host.withoutLinks(CONF));
    }

    @Test
    void aMissingPathIsEmptyUntilItAppears(@TempDir Path root)
            throws Exception
    {
        Files.createDirectories(root.resolve("etc"));
        HostPaths.Walk walk = new HostPaths(root).walk(CONF, FileSystemCalls.get());
        assertThat(walk.now()).isEmpty();
        assertThat(walk.now()).isEmpty();

        Files.createDirectories(root.resolve("etc/cni/net.d"));
        assertThat(walk.now()).contains(CONF);
    }

    @Test
    void aLoopOfLinksIsEmptyEveryTime(@TempDir Path root)
            throws Exception
    {
        Files.createDirectories(root.resolve("etc"));
        Files.createSymbolicLink(root.resolve("etc/cni"), Path.of("cni"));
        HostPaths.Walk walk = new HostPaths(root).walk(CONF, FileSystemCalls.get());
        assertThat(walk.now()).isEmpty();

        Files.delete(root.resolve("etc/cni"));
        Files.createDirectories(root.resolve("etc/cni/net.d"));
        assertThat(walk.now()).contains(CONF);
    }
}
