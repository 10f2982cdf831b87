package io.cnichain.distribution.agent;

import io.cnichain.testkit.Await;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;

import static io.cnichain.distribution.agent.Files2.awaitPatched;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Files just under maxConfigBytes (1 MiB) in the conf dir, more of them than the launcher's 48 MiB heap holds: the
 * agent, as the chart runs it, reads each, keeps none of the bytes of those it never patches nor of those adapters only
 * look through, and patches the runtime's file.
 */
@ExtendWith(TempNodeExtension.class)
class AgentLargeFilesTest
{
    private static final int FILES = 80;
    private static final int SIZE = 1024 * 1024 - 1;

    @Test
    void filesWeNeverPatchOfAlmostAMebibyteEachBeforeTheRuntimesFileDoNotExhaustTheHeap(TestNode node)
            throws Exception
    {
        // Valid JSON, parsed whole before it is refused: half by every libcni (no name), half by libcni 1.3 only (a
        // disableGC that is not a boolean, which libcni 1.1 does not read).
        for (int i = 0; i < FILES; i++) {
            String head = i % 2 == 0 ? "{\"cniVersion\": \"0.4.0\", \"plugins\": [{\"type\": \"bridge\"}], \"padding\": \""
                    : "{\"cniVersion\": \"0.4.0\", \"name\": \"n\", \"disableGC\": \"maybe\", \"plugins\": [{\"type\": \"bridge\"}], \"padding\": \"";
            Files.write(node.conf(String.format("00-broken-%02d.conflist", i)), padded(head));
        }
        node.write("10-calico.conflist", TestNode.CALICO);
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, node.conf("10-calico.conflist"));
            agent.awaitLog("00-broken-78.conflist sorts before the effective configuration", Duration.ofSeconds(10));
            assertThat(agent.get("/healthz").status()).isEqualTo(200);
            // Not ready, and why (said once the pass is over): libcni 1.1 would load the first of the second half, which we
            // cannot patch.
            Await.until(Duration.ofSeconds(10), () -> agent.get("/readyz").body()
                    .contains("libcni 1.1 (containerd 1.6) loads /etc/cni/net.d/00-broken-01.conflist, which libcni 1.3 rejects"), agent::log);
            assertThat(agent.log()).doesNotContain("OutOfMemoryError");
            assertThat(agent.alive()).isTrue();
        }
    }

    @Test
    void validFilesOfAlmostAMebibyteEachThatAnAdapterLooksThroughDoNotExhaustTheHeap(TestNode node)
            throws Exception
    {
        node.write("05-cilium.conflist", TestNode.CILIUM);
        // Valid configurations under a name the runtime does not load: the cilium adapter parses each, looking for
        // its own file under another extension.
        for (int i = 0; i < FILES / 2; i++) {
            Files.write(node.conf(String.format("30-other-%02d.conflist-current", i)),
                    padded("{\"cniVersion\": \"0.4.0\", \"name\": \"n\", \"plugins\": [{\"type\": \"bridge\"}], \"padding\": \""));
        }
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, node.conf("05-cilium.conflist"));
            // Ready, and the choice said, once the pass is over: after the patch.
            Await.until(Duration.ofSeconds(20), () -> agent.get("/readyz").status() == 200, agent::log);
            assertThat(agent.log()).contains("Using adapter cilium").doesNotContain("OutOfMemoryError").doesNotContain("disabled");
            assertThat(agent.alive()).isTrue();
        }
    }

    @Test
    void filesOfAlmostAMebibyteEachThatAnAdapterNamesAsItsOwnArePatchedOrLeftUntouchedAndSaid(TestNode node)
            throws Exception
    {
        node.write("10-oci.conflist-current", TestNode.OCI);
        Files.createSymbolicLink(node.conf("10-oci.conflist"), Path.of("10-oci.conflist-current"));
        // OCI's naming: the adapter names every such file as its own, to patch before the platform links it. With our
        // entry, each of the first half would be more than maxConfigBytes, which we could not read back; the second
        // half is patched, and each write's echo read back.
        String head = "{\"cniVersion\": \"0.4.0\", \"name\": \"n\", \"plugins\": [{\"type\": \"bridge\"}], \"padding\": \"";
        for (int i = 0; i < FILES / 2; i++) {
            Files.write(node.conf(String.format("30-other-%02d.conflist-current", i)), padded(head, i < FILES / 4 ? SIZE : SIZE - 100_000));
        }
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, node.conf("10-oci.conflist-current"));
            agent.awaitLog("30-other-19.conflist-current: with our entry it would be 1048961 bytes, more than the 1048576 (maxConfigBytes) we read "
                    + "back; left untouched", Duration.ofSeconds(20));
            awaitPatched(agent, node.conf("30-other-39.conflist-current"));
            Await.until(Duration.ofSeconds(20), () -> agent.get("/readyz").body().contains("30-other-00.conflist-current: with our entry it would be"),
                    agent::log);
            assertThat(agent.get("/readyz").body()).startsWith("not ready");
            assertThat(Files.size(node.conf("30-other-00.conflist-current"))).isEqualTo(SIZE);
            assertThat(agent.log()).contains("Using adapter oci-vcn-native").doesNotContain("OutOfMemoryError");
            assertThat(agent.alive()).isTrue();
        }
    }

    @Test
    void aPluginBinaryLargerThanTheHeapIsCopiedAndRemovedAChunkAtATime(TestNode node)
            throws Exception
    {
        byte[] binary = new byte[64 * 1024 * 1024];
        new Random(64).nextBytes(binary);
        Path source = node.imageBinDir().resolve("linkerd-cni");
        Files.write(source, binary);
        node.write("10-calico.conflist", TestNode.CALICO);
        Path copy = node.host(TestNode.BIN_DIR.resolve("linkerd-cni"));
        try (AgentProcess agent = AgentProcess.start(node)) {
            awaitPatched(agent, node.conf("10-calico.conflist"));
            assertThat(Files.mismatch(source, copy)).isEqualTo(-1);
            // Recorded after the patch, digested a chunk at a time.
            String recorded = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(binary)) + "  linkerd-cni";
            Path record = node.host(TestNode.BIN_DIR.resolve(".cni-chain.installed"));
            Await.until(Duration.ofSeconds(20), () -> Files2.read(record).contains(recorded), () -> "no record of the copy:\n" + agent.log());
            // Not started with the downward API's names, the agent takes every stop for an uninstall.
            assertThat(agent.terminate(Duration.ofSeconds(30))).isZero();
            assertThat(agent.log()).doesNotContain("OutOfMemoryError").contains("Removing linkerd-cni config from");
            // Removed because it still has the image's bytes: compared a chunk at a time.
            assertThat(copy).doesNotExist();
        }
    }

    private static byte[] padded(String head)
    {
        return padded(head, SIZE);
    }

    private static byte[] padded(String head, int size)
    {
        byte[] bytes = (head + "x".repeat(size - head.length() - 2) + "\"}").getBytes(StandardCharsets.US_ASCII);
        assertThat(bytes).hasSize(size);
        return bytes;
    }
}
