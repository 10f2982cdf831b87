package io.cnichain.distribution.image;

import io.cnichain.distribution.runtime.Layout;
import io.cnichain.distribution.runtime.RealRuntime;
import io.cnichain.distribution.runtime.RuntimeNode;
import io.cnichain.distribution.runtime.Sandbox;
import io.cnichain.distribution.runtime.Steps;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one capability the DaemonSet adds after dropping all: root needs none to write root's own files in root's
 * directories (the other tests run so), but replacing a configuration owned by another user keeps its owner only
 * with CHOWN; without it the file is left as it was and the error names it.
 */
@RealRuntime
class CapabilitiesIT
{
    private static final int OWNER = 1000;

    private Sandbox sandbox;
    private RuntimeNode node;
    private Layout.Primary primary;
    private String image;
    private Path pluginBin;

    @BeforeEach
    void setUp(Sandbox sandbox)
            throws IOException
    {
        this.sandbox = sandbox;
        node = sandbox.node("caps");
        primary = Layout.PLAIN_CONFLIST.lay(node);
        Files.setAttribute(primary.installedFile(), "unix:uid", OWNER);
        Files.setAttribute(primary.installedFile(), "unix:gid", OWNER);
        image = ImageUnderTest.load(sandbox, node);
        pluginBin = AgentContainer.copyPluginBinary(node, PluginImage.build(sandbox, node));
    }

    @AfterEach
    void tearDown()
    {
        node.close();
    }

    @Test
    void withChownAnotherUsersConfigurationIsPatchedAndKeepsItsOwner()
            throws IOException, InterruptedException
    {
        AgentContainer agent = AgentContainer.start(node, image, pluginBin, AgentContainer.nodeEnv(node), List.of("CHOWN"));
        agent.awaitReady(Duration.ofSeconds(60));
        List<String> types = RuntimeNode.pluginTypes(RuntimeNode.json(primary.installedFile()));
        assertThat(types).endsWith(RuntimeNode.PLUGIN);
        assertOwnedByTheUser();

        agent.stop(30);
        assertThat(agent.awaitExit()).as(agent.logs()).isZero();
        assertThat(RuntimeNode.json(primary.installedFile())).isEqualTo(primary.original());
        assertOwnedByTheUser();
        Steps.say("with CHOWN alone: " + primary.installedFile().getFileName() + " of uid " + OWNER + " patched and restored, owner kept");
    }

    @Test
    void withoutChownTheFileIsLeftAsItWasAndTheErrorNamesIt()
            throws IOException, InterruptedException
    {
        AgentContainer agent = AgentContainer.start(node, image, pluginBin, AgentContainer.nodeEnv(node), List.of());
        String error = agent.awaitLogLine(Duration.ofSeconds(60), primary.installedFile().toString(), "cannot be written");
        assertThat(RuntimeNode.json(primary.installedFile())).as("not patched").isEqualTo(primary.original());
        assertOwnedByTheUser();
        assertThat(agent.get("/readyz")).as("not ready").isEqualTo(503);
        Steps.say("without CHOWN: " + error.strip());
        agent.stop(30);
        agent.awaitExit();
        // Listed once the agent is gone: while it runs, a retry's temp file exists for the few milliseconds of its attempt.
        try (Stream<Path> files = Files.list(node.confDir())) {
            assertThat(files.map(f -> f.getFileName().toString())).as("no temp file left behind").noneMatch(name -> name.startsWith(".cni-chain-"));
        }
    }

    private void assertOwnedByTheUser()
            throws IOException
    {
        assertThat(Files.getAttribute(primary.installedFile(), "unix:uid")).isEqualTo(OWNER);
        assertThat(Files.getAttribute(primary.installedFile(), "unix:gid")).isEqualTo(OWNER);
        assertThat(Files.getPosixFilePermissions(primary.installedFile())).isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
    }
}
