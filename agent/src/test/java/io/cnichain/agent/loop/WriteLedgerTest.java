package io.cnichain.agent.loop;

import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(TempNodeExtension.class)
class WriteLedgerTest
{
    static final Path CALICO = Path.of("/etc/cni/net.d/10-calico.conflist");

    TestNode node;
    WriteLedger ledger;

    @BeforeEach
    void setUp(TestNode node)
            throws IOException
    {
        this.node = node;
        this.ledger = new WriteLedger(node.config().host(), new BoundedFileReader(BoundedFileReader.DEFAULT_LIMIT), new io.cnichain.agent.time.ManualClock());
        Path file = node.write("10-calico.conflist", TestNode.CALICO);
        ledger.record(new FileOutcome.Written(CALICO, Files.readAllBytes(file)), 1000);
    }

    @Test
    void ourBytesComingBackAreOurEchoAnyOtherBytesAreNot()
    {
        assertThat(isEcho(CALICO)).isTrue();
        assertThat(ledger.holdsOurLastWrite(CALICO)).isTrue();
        node.rewriteInPlace("10-calico.conflist", TestNode.CILIUM);
        assertThat(isEcho(CALICO)).isFalse();
        assertThat(ledger.holdsOurLastWrite(CALICO)).isFalse();
        assertThat(isEcho(Path.of("/etc/cni/net.d/never-written.conflist"))).isFalse();
    }

    @Test
    void anEventOnALinkIsNeverOurEchoEvenWhenItLeadsToOurBytes()
    {
        node.link("20-alias.conflist", "10-calico.conflist");
        assertThat(isEcho(Path.of("/etc/cni/net.d/20-alias.conflist"))).isFalse();
        assertThat(isEcho(CALICO)).as("the file itself still is").isTrue();
    }

    @Test
    void theBytesTheEchoCheckReadAreTheBytesTheSnapshotThenParses()
    {
        NodeSnapshot snapshot = node.snapshot();
        ConfigEntry entry = snapshot.inspect(CALICO);
        assertThat(ledger.isEcho(entry, snapshot)).isTrue();
        // Rewritten after the check: the rest of the pass must decide from what the check saw, not read it again.
        node.rewriteInPlace("10-calico.conflist", TestNode.CILIUM);

        assertThat(snapshot.parse(entry).config().orElseThrow().pluginTypes()).contains("calico").doesNotContain("cilium");
        assertThat(isEcho(CALICO)).as("a new snapshot reads it again").isFalse();
    }

    private boolean isEcho(Path hostPath)
    {
        NodeSnapshot snapshot = node.snapshot();
        return ledger.isEcho(snapshot.inspect(hostPath), snapshot);
    }

    @Test
    void theFirstChangeByAnotherWriterSinceOurWriteIsKeptUntilWeWriteAgain()
    {
        ledger.overwrittenAt(CALICO, 1010);
        ledger.overwrittenAt(CALICO, 1500);
        assertThat(ledger.overwrittenSince(CALICO)).contains(1010L);
        ledger.record(new FileOutcome.Written(CALICO, "abc".getBytes(StandardCharsets.UTF_8)), 2000);
        assertThat(ledger.overwrittenSince(CALICO)).isEmpty();

        ledger.overwrittenAt(CALICO, 2100);
        ledger.notOverwritten(CALICO);
        assertThat(ledger.overwrittenSince(CALICO)).as("it kept our entry after all").isEmpty();

        Path other = Path.of("/etc/cni/net.d/99-other.conflist");
        ledger.overwrittenAt(other, 10);
        assertThat(ledger.overwrittenSince(other)).as("only files we wrote are tracked").isEmpty();
    }
}
