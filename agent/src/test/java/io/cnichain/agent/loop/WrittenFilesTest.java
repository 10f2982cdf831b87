package io.cnichain.agent.loop;

import io.cnichain.agent.time.ManualClock;
import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.core.engine.Engine;
import io.cnichain.core.engine.FileOutcome;
import io.cnichain.spi.ConfigEntry;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** Our own write coming back, told from any other change by its bytes, on real files through the real engine. */
@ExtendWith(TempNodeExtension.class)
class WrittenFilesTest
{
    static final Path CALICO = Path.of("/etc/cni/net.d/10-calico.conflist");

    TestNode node;
    Engine engine;
    WrittenFiles files;

    @BeforeEach
    void patchOnce(TestNode node)
    {
        this.node = node;
        node.write("10-calico.conflist", TestNode.CALICO);
        engine = new Engine(node.config(), new AdapterRegistry(List.of(new LoadedAdapter(new LoopTestAdapter(), "test", LoadedAdapter.Origin.CLASSPATH, "tests")),
                List.of()));
        files = new WrittenFiles(engine, RunningLoop.FAST, new AgentMetrics(), new ManualClock());
        NodeSnapshot snapshot = engine.snapshot();
        Selection selection = engine.select(snapshot);
        assertThat(files.patch(selection.targets().get(0), selection, snapshot, OptionalLong.empty()).result()).isEqualTo(FileOutcome.Result.PATCHED);
    }

    @Test
    void ourBytesComingBackAreOurEchoAnyOtherBytesAreNotNorIsALinkToOurs()
    {
        assertThat(isEcho(CALICO)).isTrue();
        node.link("20-alias.conflist", "10-calico.conflist");
        assertThat(isEcho(Path.of("/etc/cni/net.d/20-alias.conflist"))).as("we never write links").isFalse();
        node.rewriteInPlace("10-calico.conflist", TestNode.CILIUM);
        assertThat(isEcho(CALICO)).isFalse();
        assertThat(isEcho(Path.of("/etc/cni/net.d/never-written.conflist"))).isFalse();
    }

    @Test
    void theBytesTheEchoCheckReadAreTheBytesTheSnapshotThenParses()
    {
        NodeSnapshot snapshot = engine.snapshot();
        ConfigEntry entry = snapshot.inspect(CALICO);
        assertThat(files.isEcho(entry, snapshot)).isTrue();
        // Rewritten after the check: the rest of the pass must decide from what the check saw, not read it again.
        node.rewriteInPlace("10-calico.conflist", TestNode.CILIUM);

        assertThat(snapshot.parse(entry).config().orElseThrow().pluginTypes()).contains("calico", "linkerd-cni").doesNotContain("cilium");
        assertThat(isEcho(CALICO)).as("a new snapshot reads it again").isFalse();
    }

    private boolean isEcho(Path hostPath)
    {
        NodeSnapshot snapshot = engine.snapshot();
        return files.isEcho(snapshot.inspect(hostPath), snapshot);
    }
}
