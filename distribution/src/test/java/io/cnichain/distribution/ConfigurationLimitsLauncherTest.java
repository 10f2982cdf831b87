package io.cnichain.distribution;

import io.cnichain.core.json.GoJsonParser;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The heap the launcher gives (48 MiB) and what the agent reads agree: a configuration at the size limit
 * ({@code maxConfigBytes}, 1 MiB) and at the value limit ({@link GoJsonParser#MAX_VALUES}) is read, and patched while
 * our entry fits within them; one past either is refused with the reason, never read until the heap runs out (which
 * killed every command).
 */
@ExtendWith(TempNodeExtension.class)
class ConfigurationLimitsLauncherTest
{
    static final int LIMIT_BYTES = 1024 * 1024;

    /** A Calico list whose plugin holds {@code count} zeros: the most values per byte JSON allows. */
    static String zeros(int count)
    {
        StringBuilder out = new StringBuilder("{\"cniVersion\":\"1.0.0\",\"name\":\"k8s-pod-network\",\"plugins\":[{\"type\":\"calico\",\"a\":[");
        for (int i = 0; i < count; i++) {
            out.append(i == 0 ? "0" : ",0");
        }
        return out.append("]},{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}}]}").toString();
    }

    /** A Calico list padded to exactly {@code bytes} with one long string of three-byte letters. */
    static String padded(int bytes)
    {
        String head = "{\"cniVersion\":\"1.0.0\",\"name\":\"k8s-pod-network\",\"plugins\":[{\"type\":\"calico\",\"note\":\"";
        String tail = "\"},{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}}]}";
        int room = bytes - head.length() - tail.length();
        return head + "一".repeat(room / 3) + "x".repeat(room % 3) + tail;
    }

    /** As it is, byte for byte (the node's own write would pretty-print it). */
    static void write(TestNode node, String content)
    {
        try {
            java.nio.file.Files.writeString(node.confDir().resolve("10-calico.conflist"), content);
        }
        catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aConfigurationAtEitherLimitIsReadAndPatchedWhileOurEntryFits(TestNode node)
            throws java.io.IOException
    {
        // Values in the document besides the zeros: the root, cniVersion, name, plugins, two plugins, their members;
        // and room for our entry's (about 25), which the patched text must still load with.
        int others = 11;
        int ours = 30;
        write(node, zeros(GoJsonParser.MAX_VALUES - others - ours));
        RealLauncher.Run install = RealLauncher.run(node, "install");
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(node.read("10-calico.conflist")).contains("linkerd-cni");

        // Room for our entry (about 400 bytes): patched, and still read back.
        write(node, padded(LIMIT_BYTES - 1024));
        install = RealLauncher.run(node, "install");
        assertThat(install.code()).as(install.toString()).isZero();
        assertThat(node.read("10-calico.conflist")).contains("linkerd-cni");
        assertThat(java.nio.file.Files.size(node.confDir().resolve("10-calico.conflist"))).isLessThanOrEqualTo(LIMIT_BYTES);

        // At the limit: read, but with our entry it would be more than we read back, to see the entry or remove it.
        String atTheLimit = padded(LIMIT_BYTES);
        write(node, atTheLimit);
        assertThat(node.read("10-calico.conflist").getBytes(java.nio.charset.StandardCharsets.UTF_8)).hasSize(LIMIT_BYTES);
        install = RealLauncher.run(node, "install");
        assertThat(install.code()).as(install.toString()).isEqualTo(1);
        assertThat(install.out()).doesNotContain("OutOfMemoryError")
                .contains("10-calico.conflist: with our entry it would be ").contains(" bytes, more than the 1048576 (maxConfigBytes) we read back");
        assertThat(node.read("10-calico.conflist")).isEqualTo(atTheLimit);
    }

    @Test
    void aConfigurationPastTheValueLimitIsRefusedWithTheReason(TestNode node)
    {
        // 1 MiB of "0,": before the limit, every command ran out of heap.
        write(node, zeros(LIMIT_BYTES / 2 - 100));
        for (String command : new String[] {"detect", "install"}) {
            RealLauncher.Run run = RealLauncher.run(node, command);
            assertThat(run.out()).doesNotContain("OutOfMemoryError")
                    .contains("holds more than " + GoJsonParser.MAX_VALUES + " JSON values (a CNI configuration has hundreds); not read");
            assertThat(run.code()).as(run.toString()).isEqualTo(1);
        }
        assertThat(node.read("10-calico.conflist")).doesNotContain("linkerd-cni");
    }
}
