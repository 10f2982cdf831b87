package io.cnichain.core.engine;

import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.AdapterSelector.Selection;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.core.discovery.NodeSnapshot;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniConfig;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import io.cnichain.spi.NodeView;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** A file is patched from the bytes the pass already read, and only while the file still holds them. */
class InstallerPatchTest
{
    @TempDir
    Path temp;

    TestNode node;
    Engine engine;
    final Primary primary = new Primary("10-calico.conflist");

    @BeforeEach
    void setUp()
    {
        node = TestNode.create(temp);
        node.write("10-calico.conflist", TestNode.CALICO);
        engine = new Engine(node.config(), new AdapterRegistry(List.of(new LoadedAdapter(primary, "1", LoadedAdapter.Origin.CLASSPATH, "test")), List.of()));
    }

    @Test
    void aFileThePassReadIsPatchedFromThoseBytes()
    {
        Decided pass = decide(engine, "10-calico.conflist");

        assertThat(pass.snapshot().loadedAlready("10-calico.conflist", pass.target().resolvedFile())).as("the adapter read it").isPresent();
        FileOutcome outcome = engine.installer().patch(pass.target(), pass.selection(), pass.snapshot(), Optional.empty());

        assertThat(outcome.result()).isEqualTo(FileOutcome.Result.PATCHED);
        assertThat(node.read("10-calico.conflist")).contains("\"type\": \"linkerd-cni\"");
        assertThat(primary.judged).as("asked whether the file is complete once, with the decision, not again to patch it").hasValue(1);
    }

    @Test
    void aFileThePassDidNotReadIsReadAndJudgedWhenPatched()
    {
        Decided pass = decide(engine, "10-calico.conflist");
        NodeSnapshot other = engine.snapshot();

        assertThat(other.loadedAlready("10-calico.conflist", pass.target().resolvedFile())).isEmpty();
        FileOutcome outcome = engine.installer().patch(pass.target(), pass.selection(), other, Optional.empty());

        assertThat(outcome.result()).isEqualTo(FileOutcome.Result.PATCHED);
        assertThat(primary.judged).as("its own parse is judged again").hasValue(2);
    }

    @Test
    void aFileOurEntryWouldTakePastMaxConfigBytesIsLeftUntouched()
            throws IOException
    {
        // Just under the limit: patched, it would be more than we read back, to see our entry or to remove it.
        String head = TestNode.CALICO.substring(0, TestNode.CALICO.length() - 1) + ",\"padding\":\"";
        String padded = head + "x".repeat(1024 * 1024 - 100 - head.length()) + "\"}";
        Files.writeString(node.conf("10-calico.conflist"), padded);
        assertThat(engine.detect().targets()).singleElement().satisfies(target -> assertThat(target.plan())
                .startsWith("refuse: with our entry it would be ").endsWith(" bytes, more than the 1048576 (maxConfigBytes) we read back"));
        Decided pass = decide(engine, "10-calico.conflist");

        FileOutcome outcome = engine.installer().patch(pass.target(), pass.selection(), pass.snapshot(), Optional.empty());

        assertThat(outcome.result()).isEqualTo(FileOutcome.Result.FAILED);
        assertThat(outcome.detail()).startsWith("/etc/cni/net.d/10-calico.conflist: with our entry it would be ")
                .endsWith(" bytes, more than the 1048576 (maxConfigBytes) we read back; left untouched");
        assertThat(node.read("10-calico.conflist")).isEqualTo(padded);
    }

    @Test
    void aFileChangedSinceThePassReadItIsNotWrittenFromWhatItRead()
    {
        Decided pass = decide(engine, "10-calico.conflist");
        node.rewriteInPlace("10-calico.conflist", TestNode.CILIUM);

        FileOutcome outcome = engine.installer().patch(pass.target(), pass.selection(), pass.snapshot(), Optional.empty());

        assertThat(outcome.result()).isEqualTo(FileOutcome.Result.WAITING);
        assertThat(outcome.detail()).endsWith("changed while we patched it; not written, the change will be handled next");
        assertThat(node.read("10-calico.conflist")).contains("cilium-cni").doesNotContain("linkerd-cni");
    }

    @Test
    void aSinglePluginFileIsConvertedFromItsContentAtPatchTimeNotFromThePasssRead()
    {
        node.write("05-cilium.conf", TestNode.CILIUM_CONF);
        Engine cilium = new Engine(node.config(), new AdapterRegistry(List.of(
                new LoadedAdapter(new Primary("05-cilium.conf"), "1", LoadedAdapter.Origin.CLASSPATH, "test")), List.of()));
        Decided pass = decide(cilium, "05-cilium.conf");
        assertThat(pass.snapshot().loadedAlready("05-cilium.conf", pass.target().resolvedFile())).as("the adapter read it").isPresent();
        // The primary rewrites its file between the pass's read and the conversion, which deletes the original unchecked.
        node.rewriteInPlace("05-cilium.conf", TestNode.CILIUM_CONF.replace("\"enable-debug\":false", "\"enable-debug\":true"));

        FileOutcome outcome = cilium.installer().patch(pass.target(), pass.selection(), pass.snapshot(), Optional.empty());

        assertThat(outcome.result()).isEqualTo(FileOutcome.Result.CONVERTED);
        assertThat(node.read("05-cilium.conflist")).contains("\"enable-debug\": true").contains("linkerd-cni");
    }

    @Test
    void aConversionNeverReplacesAListOfTheSameNameThatIsNotOurs()
    {
        // Another network's list, named as the conversion's would be: overwriting it would lose that network, and
        // uninstall would then delete it.
        node.write("05-cilium.conf", TestNode.CILIUM_CONF);
        String other = TestNode.CALICO.replace("k8s-pod-network", "another-network");
        node.write("05-cilium.conflist", other);
        String before = node.read("05-cilium.conflist");
        Engine cilium = new Engine(node.config(), new AdapterRegistry(List.of(
                new LoadedAdapter(new Primary("05-cilium.conf"), "1", LoadedAdapter.Origin.CLASSPATH, "test")), List.of()));
        Decided pass = decide(cilium, "05-cilium.conf");

        FileOutcome outcome = cilium.installer().patch(pass.target(), pass.selection(), pass.snapshot(), Optional.empty());

        assertThat(outcome.result()).isEqualTo(FileOutcome.Result.FAILED);
        assertThat(outcome.detail()).isEqualTo("/etc/cni/net.d/05-cilium.conflist already exists and cni-chain did not write it; converting "
                + "/etc/cni/net.d/05-cilium.conf would replace it, so neither file is touched (rename or remove one of them)");
        assertThat(node.read("05-cilium.conflist")).isEqualTo(before);
        assertThat(node.read("05-cilium.conf")).doesNotContain("linkerd-cni");
    }

    /** The record's digests are the copied binaries' whole bytes, tens of MiB for a real plugin: the patch does not wait for them. */
    @Test
    void theRecordOfTheCopiedBinariesIsWrittenAfterThePatch()
    {
        Path record = node.binDir().resolve(io.cnichain.core.install.BinaryInstaller.RECORD);
        NodeSnapshot snapshot = engine.snapshot();
        Selection selection = engine.select(snapshot);
        List<Boolean> recordedAtThePatch = new java.util.ArrayList<>();

        InstallReport report = engine.installer().install(snapshot, selection, Prerequisites.ALL, target -> {
            recordedAtThePatch.add(Files.exists(record));
            return engine.installer().patch(target, selection, snapshot, Optional.empty());
        });

        assertThat(report.binaries()).contains(TestNode.BIN_DIR.resolve("linkerd-cni"));
        assertThat(recordedAtThePatch).containsExactly(false);
        assertThat(node.read("10-calico.conflist")).contains("\"type\": \"linkerd-cni\"");
        assertThat(record).content().endsWith("  linkerd-cni\n");
        assertThat(report.owed().any()).isFalse();
    }

    @Test
    void aStepThatThrowsLeavesTheRecordOfTheCopiesAllTheSame()
    {
        NodeSnapshot snapshot = engine.snapshot();
        Selection selection = engine.select(snapshot);

        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> engine.installer().install(snapshot, selection, Prerequisites.ALL, target -> {
            throw new IllegalStateException("a step's bug");
        }))).hasMessage("a step's bug");
        assertThat(node.binDir().resolve(io.cnichain.core.install.BinaryInstaller.RECORD)).content().endsWith("  linkerd-cni\n");
    }

    @Test
    void aRecordThatCannotBeWrittenFailsThePassAfterThePatchAndLeavesTheBinariesOwed()
            throws IOException
    {
        Path record = Files.createDirectory(node.binDir().resolve(io.cnichain.core.install.BinaryInstaller.RECORD));
        NodeSnapshot snapshot = engine.snapshot();
        Selection selection = engine.select(snapshot);

        InstallReport report = engine.installer().install(snapshot, selection, Prerequisites.ALL,
                target -> engine.installer().patch(target, selection, snapshot, Optional.empty()));

        assertThat(node.read("10-calico.conflist")).contains("\"type\": \"linkerd-cni\"");
        assertThat(report.failures()).containsExactly("/opt/cni/bin/" + record.getFileName() + ": is not a regular file; refusing to replace it");
        assertThat(report.owed().binaries()).isTrue();
    }

    /** The binary waits for the kubeconfig, so its source is not why it is missing: one failure, said once. */
    @Test
    void aKubeconfigThatCannotBeRenderedIsTheOneReasonGivenForTheMissingBinary()
            throws IOException
    {
        Files.delete(node.serviceAccountDir().resolve("token"));
        NodeSnapshot snapshot = engine.snapshot();
        Selection selection = engine.select(snapshot);

        InstallReport report = engine.installer().install(snapshot, selection, Prerequisites.ALL,
                target -> engine.installer().patch(target, selection, snapshot, Optional.empty()));

        assertThat(report.failures()).containsExactly(node.serviceAccountDir().resolve("token") + ": the service-account token does not exist",
                "/opt/cni/bin/linkerd-cni: the linkerd-cni binary is not installed (for the failure above); no configuration may name a missing binary");
        assertThat(node.binDir().resolve("linkerd-cni")).doesNotExist();
        assertThat(node.read("10-calico.conflist")).doesNotContain("linkerd-cni");
    }

    /** One pass's look at the node, its decision, and the decision's target of that name. */
    record Decided(NodeSnapshot snapshot, Selection selection, ConfigTarget target) {}

    static Decided decide(Engine engine, String name)
    {
        NodeSnapshot snapshot = engine.snapshot();
        Selection selection = engine.select(snapshot);
        return new Decided(snapshot, selection, selection.targets().stream().filter(t -> t.path().getFileName().toString().equals(name)).findFirst().orElseThrow());
    }

    /** Names its one file and reads it, as every platform's adapter does. */
    static final class Primary
            implements CniPlatformAdapter
    {
        final AtomicInteger judged = new AtomicInteger();
        final String file;

        Primary(String file)
        {
            this.file = file;
        }

        @Override
        public String name()
        {
            return "primary";
        }

        @Override
        public Detection detect(NodeView node, AdapterSettings settings)
        {
            return Detection.of(10, "test");
        }

        @Override
        public Optional<String> incompleteReason(ConfigTarget target, CniConfig config, AdapterSettings settings)
        {
            judged.incrementAndGet();
            return Optional.empty();
        }

        @Override
        public List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings)
        {
            return node.entry(file).filter(e -> node.parse(e).isValid()).map(e -> List.of(ConfigTarget.of(e, "test"))).orElse(List.of());
        }
    }
}
