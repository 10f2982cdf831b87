package io.cnichain.distribution;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A token or CA that is a FIFO is refused at once by a one-shot {@code install}: it used to wait on it forever. */
@ExtendWith(TempNodeExtension.class)
class FifoSecretsLauncherTest
{
    @Test
    void aOneShotInstallWithAFifoTokenOrCaFailsAtOnce(TestNode node)
            throws Exception
    {
        node.write("10-calico.conflist", TestNode.CALICO);
        for (String name : List.of("token", "ca.crt")) {
            Path data = node.serviceAccount().dataDirectory();
            Files.delete(data.resolve(name));
            fifo(data.resolve(name));
            long started = System.nanoTime();
            RealLauncher.Run install = RealLauncher.run(node, "install");
            assertThat(System.nanoTime() - started).as(name + ": no wait on the FIFO").isLessThan(TimeUnit.SECONDS.toNanos(10));
            assertThat(install.code()).as(install.out()).isEqualTo(1);
            assertThat(install.out()).contains(node.serviceAccountDir().resolve(name) + ": ").contains("is a FIFO, not a regular file");
            node.serviceAccount().update(name, name + "-again\n");
        }
    }

    private static void fifo(Path path)
            throws Exception
    {
        Files.deleteIfExists(path);
        Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0).isTrue();
    }
}
