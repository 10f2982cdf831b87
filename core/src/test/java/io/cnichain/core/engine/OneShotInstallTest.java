package io.cnichain.core.engine;

import io.cnichain.core.adapters.AdapterRegistry;
import io.cnichain.core.adapters.LoadedAdapter;
import io.cnichain.spi.AdapterSettings;
import io.cnichain.spi.CniPlatformAdapter;
import io.cnichain.spi.ConfigTarget;
import io.cnichain.spi.Detection;
import io.cnichain.spi.NodeView;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The one-shot install leaves the file the runtime loads patched, as the agent's passes do. */
class OneShotInstallTest
{
    @TempDir
    Path temp;

    /**
     * A conversion renames: 10-x.conf becomes 10-x.conflist, which sorts after 10-x.conf.conflist, another network's
     * list. The runtime then loads that one, so install looks again and patches it.
     */
    @Test
    void aConversionThatHandsTheRuntimeAnotherFileIsFollowedByItsPatch()
    {
        TestNode node = TestNode.create(temp);
        node.write("10-x.conf", "{\"cniVersion\":\"0.3.1\",\"name\":\"x\",\"type\":\"bridge\"}");
        node.write("10-x.conf.conflist", "{\"cniVersion\":\"0.3.1\",\"name\":\"y\",\"plugins\":[{\"type\":\"bridge\"}]}");
        Engine engine = new Engine(node.config(), new AdapterRegistry(List.of(
                new LoadedAdapter(new Effective(), "1", LoadedAdapter.Origin.CLASSPATH, "test")), List.of()));

        InstallReport report = engine.install();

        assertThat(report.succeeded()).as(report.toString()).isTrue();
        assertThat(report.outcomes()).extracting(FileOutcome::result).containsExactly(FileOutcome.Result.CONVERTED, FileOutcome.Result.PATCHED);
        assertThat(node.read("10-x.conflist")).contains("linkerd-cni");
        assertThat(node.read("10-x.conf.conflist")).contains("linkerd-cni");
        assertThat(engine.snapshot().effectiveConfig()).map(entry -> entry.path().getFileName().toString()).hasValue("10-x.conf.conflist");
    }

    /** Names what the runtime loads, as generic-symlink does. */
    static final class Effective
            implements CniPlatformAdapter
    {
        @Override
        public String name()
        {
            return "effective";
        }

        @Override
        public Detection detect(NodeView node, AdapterSettings settings)
        {
            return Detection.of(10, "test");
        }

        @Override
        public List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings)
        {
            return node.effectiveConfig().map(entry -> List.of(ConfigTarget.of(entry, "the configuration the runtime loads"))).orElse(List.of());
        }
    }
}
