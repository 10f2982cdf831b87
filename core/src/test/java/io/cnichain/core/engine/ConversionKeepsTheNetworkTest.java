package io.cnichain.core.engine;

import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A conversion never changes which network the runtime runs. */
class ConversionKeepsTheNetworkTest
{
    @TempDir
    Path temp;

    /**
     * A conversion renames: 10-x.conf would become 10-x.conflist, which sorts after 10-x.conf.conflist, another network's
     * list, and the runtime would load that one. Nothing is touched, and install says why.
     */
    @Test
    void aConversionThatWouldHandTheRuntimeAnotherFileIsRefused()
    {
        TestNode node = TestNode.create(temp);
        String single = "{\"cniVersion\":\"0.3.1\",\"name\":\"x\",\"type\":\"bridge\"}";
        String other = "{\"cniVersion\":\"0.3.1\",\"name\":\"y\",\"plugins\":[{\"type\":\"bridge\"}]}";
        node.write("10-x.conf", single);
        node.write("10-x.conf.conflist", other);
        single = node.read("10-x.conf");
        other = node.read("10-x.conf.conflist");
        Engine engine = new Engine(node.config(), new AdapterRegistry(List.of(
                new LoadedAdapter(new InstallerPatchTest.Primary("10-x.conf"), "1", LoadedAdapter.Origin.CLASSPATH, "test")), List.of()));

        InstallReport report = engine.install();

        assertThat(report.succeeded()).as(report.toString()).isFalse();
        assertThat(report.outcomes()).singleElement().satisfies(outcome -> assertThat(outcome.detail()).isEqualTo("converting /etc/cni/net.d/10-x.conf "
                + "to 10-x.conflist would hand the runtime /etc/cni/net.d/10-x.conf.conflist, which sorts between them, so neither file is touched "
                + "(rename or remove it)"));
        assertThat(node.read("10-x.conf")).isEqualTo(single);
        assertThat(node.read("10-x.conf.conflist")).isEqualTo(other);
        assertThat(node.conf("10-x.conflist")).doesNotExist();
    }

    /** A file that sorts after the list's name, or a directory between, changes nothing: the conversion goes ahead. */
    @Test
    void aFileAfterTheListsNameOrADirectoryBetweenIsNoHindrance()
            throws java.io.IOException
    {
        TestNode node = TestNode.create(temp);
        node.write("10-x.conf", "{\"cniVersion\":\"0.3.1\",\"name\":\"x\",\"type\":\"bridge\"}");
        node.write("10-x.conflist.json", "{\"cniVersion\":\"0.3.1\",\"name\":\"z\",\"type\":\"bridge\"}");
        java.nio.file.Files.createDirectories(node.confDir().resolve("10-x.conf.d.conflist"));
        Engine engine = new Engine(node.config(), new AdapterRegistry(List.of(
                new LoadedAdapter(new InstallerPatchTest.Primary("10-x.conf"), "1", LoadedAdapter.Origin.CLASSPATH, "test")), List.of()));

        InstallReport report = engine.install();

        assertThat(report.succeeded()).as(report.toString()).isTrue();
        assertThat(report.outcomes()).extracting(FileOutcome::result).containsExactly(FileOutcome.Result.CONVERTED);
        assertThat(engine.snapshot().effectiveConfig()).map(entry -> entry.path().getFileName().toString()).hasValue("10-x.conflist");
    }
}
