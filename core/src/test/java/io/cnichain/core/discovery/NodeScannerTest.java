package io.cnichain.core.discovery;

import io.cnichain.spi.ConfigEntry;
import io.cnichain.spi.ParseResult;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's snapshots made from what changed: every one must say what a fresh one-shot snapshot says whenever the
 * events it was told of cover the changes, and a file the runtime loads must never be judged from a stale parse,
 * events or not.
 */
@ExtendWith(TempNodeExtension.class)
class NodeScannerTest
{
    TestNode node;
    NodeScanner scanner;

    @BeforeEach
    void setUp(TestNode node)
    {
        this.node = node;
        node.write("10-calico.conflist", TestNode.CALICO);
        node.write("notes.txt", "nothing");
        node.write("05-cilium.conflist-current", TestNode.CILIUM);
        this.scanner = new NodeScanner(node.layout());
    }

    @Test
    void theFirstSnapshotIsTheOneShotSnapshot()
    {
        assertSameAsFresh(scanner.snapshot());
    }

    @Test
    void namedChangesAreSeenAndOnlyTheyAreLookedAtAgain()
    {
        scanner.snapshot();
        node.write("05-cilium.conflist", TestNode.CILIUM);
        node.write("20-later.conf", "{\"cniVersion\":\"0.3.1\",\"name\":\"lo\",\"type\":\"loopback\"}");
        try {
            Files.delete(node.conf("notes.txt"));
        }
        catch (IOException e) {
            throw new AssertionError(e);
        }
        scanner.changed("05-cilium.conflist");
        scanner.changed("20-later.conf");
        scanner.changed("notes.txt");
        NodeSnapshot snapshot = scanner.snapshot();
        assertSameAsFresh(snapshot);
        assertThat(snapshot.effectiveConfig()).map(ConfigEntry::name).contains("05-cilium.conflist");
    }

    @Test
    void aFileTheRuntimeLoadsIsReadAgainWhenItChangedEvenWithoutAnEvent()
    {
        assertThat(type(scanner.snapshot(), "10-calico.conflist")).isEqualTo("calico");
        // Rewritten in place, same inode: its identity (size, times) changed, or it changed too recently to trust them.
        node.rewriteInPlace("10-calico.conflist", TestNode.CALICO.replace("\"calico\"", "\"calicx\""));
        assertThat(type(scanner.snapshot(), "10-calico.conflist")).isEqualTo("calicx");
    }

    @Test
    void aFileReadThroughALinkIsReadAgainWhenItChangedEvenWithoutAnEvent()
    {
        node.link("05-cilium.conflist", "05-cilium.conflist-current");
        scanner.changed("05-cilium.conflist");
        assertThat(type(scanner.snapshot(), "05-cilium.conflist")).isEqualTo("cilium-cni");
        node.rewriteInPlace("05-cilium.conflist-current", TestNode.CILIUM.replace("cilium-cni", "cilium-cnx"));
        assertThat(type(scanner.snapshot(), "05-cilium.conflist")).isEqualTo("cilium-cnx");
    }

    @Test
    void anOldFileWithTheSameSizeAndTimesIsStillReadAgainWhenItsInodeChanged()
            throws IOException
    {
        Path file = node.conf("10-calico.conflist");
        FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 60_000);
        Files.setLastModifiedTime(file, old);
        assertThat(type(scanner.snapshot(), "10-calico.conflist")).isEqualTo("calico");
        // Another file of the same size and modification time renamed over it: only the inode tells them apart.
        Path replacement = node.write(".replacement", TestNode.CALICO.replace("\"calico\"", "\"calicx\""));
        Files.setLastModifiedTime(replacement, old);
        Files.move(replacement, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertThat(type(scanner.snapshot(), "10-calico.conflist")).isEqualTo("calicx");
    }

    @Test
    void linksAreResolvedAgainOnEverySnapshot()
    {
        node.write("05-cilium.conflist-old", TestNode.CILIUM);
        node.link("05-cilium.conflist", "05-cilium.conflist-old");
        scanner.changed("05-cilium.conflist");
        assertThat(scanner.snapshot().entry("05-cilium.conflist").flatMap(ConfigEntry::resolvedFile))
                .contains(TestNode.CONF_DIR.resolve("05-cilium.conflist-old"));
        node.relink("05-cilium.conflist", "05-cilium.conflist-current");
        NodeSnapshot snapshot = scanner.snapshot();
        assertThat(snapshot.entry("05-cilium.conflist").flatMap(ConfigEntry::resolvedFile))
                .contains(TestNode.CONF_DIR.resolve("05-cilium.conflist-current"));
    }

    @Test
    void anOtherFileIsTrustedUntilAnEventNamesItAndEverythingIsCheckedAfterAnOverflow()
    {
        assertThat(type(scanner.snapshot(), "05-cilium.conflist-current")).isEqualTo("cilium-cni");
        node.rewriteInPlace("05-cilium.conflist-current", TestNode.CILIUM.replace("cilium-cni", "cilium-cnx"));
        // No event named it (none was lost either, in this test's story): the parse kept is served, which is what
        // spares a pass thousands of reads. The loop tells the scanner of every event in the directory.
        assertThat(type(scanner.snapshot(), "05-cilium.conflist-current")).isEqualTo("cilium-cni");
        scanner.changed("05-cilium.conflist-current");
        assertThat(type(scanner.snapshot(), "05-cilium.conflist-current")).isEqualTo("cilium-cnx");
        node.rewriteInPlace("05-cilium.conflist-current", TestNode.CILIUM.replace("cilium-cni", "cilium-cny"));
        scanner.changedEverything();
        NodeSnapshot afterOverflow = scanner.snapshot();
        assertThat(type(afterOverflow, "05-cilium.conflist-current")).isEqualTo("cilium-cny");
        assertSameAsFresh(afterOverflow);
    }

    @Test
    void entriesAddedBehindAnOverflowAppearAfterIt()
    {
        scanner.snapshot();
        node.write("00-first.conflist", TestNode.OCI);
        scanner.changedEverything();
        NodeSnapshot snapshot = scanner.snapshot();
        assertSameAsFresh(snapshot);
        assertThat(snapshot.effectiveConfig()).map(ConfigEntry::name).contains("00-first.conflist");
    }

    private void assertSameAsFresh(NodeSnapshot snapshot)
    {
        NodeSnapshot fresh = node.snapshot();
        assertThat(snapshot.entries()).isEqualTo(fresh.entries());
        assertThat(snapshot.effectiveConfig()).isEqualTo(fresh.effectiveConfig());
        assertThat(snapshot.brokenBeforeEffective()).isEqualTo(fresh.brokenBeforeEffective());
        for (ConfigEntry entry : fresh.entries()) {
            assertThat(snapshot.parse(entry)).as(entry.name()).isEqualTo(fresh.parse(entry));
        }
    }

    /**
     * A file libcni 1.3 refuses keeps none of its bytes from one pass to the next, only its verdicts: as many as the conf
     * dir holds, each up to maxConfigBytes, would fill the agent's heap. One that libcni 1.1 loads is still that one's.
     */
    @Test
    void theBytesOfAFileWeNeverPatchAreNotKept()
            throws IOException
    {
        Path nameless = node.write("01-nameless.conflist", "{\"cniVersion\":\"0.4.0\",\"plugins\":[{\"type\":\"bridge\"}]}");
        Path older = node.write("02-older.conflist", "{\"cniVersion\":\"0.4.0\",\"name\":\"net\",\"cniVersions\":[\"1.x\"],\"plugins\":[{\"type\":\"bridge\"}]}");
        // Older than the cache's racy window, so that the second snapshot takes what the first kept.
        FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 60_000);
        Files.setLastModifiedTime(nameless, old);
        Files.setLastModifiedTime(older, old);
        for (NodeSnapshot snapshot : List.of(scanner.snapshot(), scanner.snapshot())) {
            for (String name : List.of("01-nameless.conflist", "02-older.conflist")) {
                ConfigEntry entry = snapshot.entry(name).orElseThrow();
                assertThat(snapshot.parse(entry).isValid()).as(name).isFalse();
                assertThat(snapshot.load(entry).bytes()).as(name).isEmpty();
                assertThat(snapshot.loadsUnder(entry, LibcniGeneration.V1_1)).as(name).isEqualTo(name.startsWith("02"));
            }
            assertThat(snapshot.effectiveConfig(LibcniGeneration.V1_1).map(ConfigEntry::name)).contains("02-older.conflist");
        }
    }

    @Test
    void ofAFileUnderANameTheRuntimeDoesNotLoadOnlyTheVerdictIsKept()
            throws IOException
    {
        Path current = node.write("10-oci.conflist-current", TestNode.OCI);
        Files.setLastModifiedTime(current, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        byte[] bytes = Files.readAllBytes(current);
        for (NodeSnapshot snapshot : List.of(scanner.snapshot(), scanner.snapshot())) {
            ConfigEntry entry = snapshot.entry("10-oci.conflist-current").orElseThrow();
            Path target = entry.resolvedFile().orElseThrow();
            assertThat(snapshot.parse(entry).config().orElseThrow().pluginTypes()).containsExactly("oci-ipvlan", "oci-ptp");
            assertThat(snapshot.loadedAlready(entry.name(), target).flatMap(NodeSnapshot.Loaded::bytes)).isEmpty();
            assertThat(snapshot.contentOf(entry).orElseThrow()).isEqualTo(bytes);
            NodeSnapshot.Loaded whole = snapshot.load(entry);
            assertThat(whole.bytes().orElseThrow()).isEqualTo(bytes);
            assertThat(whole.config().orElseThrow().summary().pluginTypes()).containsExactly("oci-ipvlan", "oci-ptp");
            assertThat(snapshot.loadedAlready(entry.name(), target).flatMap(NodeSnapshot.Loaded::bytes)).as("read again at each call").isEmpty();
        }
    }

    @Test
    void aFileUnderANameTheRuntimeDoesNotLoadIsReadAgainForTheEngineAfterItsEchoCheck()
    {
        NodeSnapshot snapshot = scanner.snapshot();
        ConfigEntry entry = snapshot.entry("05-cilium.conflist-current").orElseThrow();
        assertThat(new String(snapshot.contentOf(entry).orElseThrow(), StandardCharsets.UTF_8)).contains("cilium-cni");

        node.rewriteInPlace("05-cilium.conflist-current", TestNode.CILIUM.replace("cilium-cni", "cilium-cnx"));

        // The bytes of the echo check are not kept for it: kept, as many as an adapter names, they would fill the heap.
        assertThat(snapshot.load(entry).config().orElseThrow().summary().pluginTypes()).containsExactly("cilium-cnx");
    }

    /** The first plugin type of the entry as the snapshot parses it, or the parse error. */

    private static String type(NodeSnapshot snapshot, String name)
    {
        ParseResult result = snapshot.parse(snapshot.entry(name).orElseThrow());
        return result.config().map(config -> List.copyOf(config.pluginTypes()).get(0)).orElse(result.error().orElse("?"));
    }
}
