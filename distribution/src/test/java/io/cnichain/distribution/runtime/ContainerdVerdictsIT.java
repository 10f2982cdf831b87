package io.cnichain.distribution.runtime;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * containerd's own verdict on every file of the libcni corpus ({@code core/src/test/resources/libcni}): each file alone
 * in a node's conf dir, {@code ctr run --cni} sets up a container's network. "Loads" means containerd got past
 * loading it (its plugins ran, a stand-in bridge that leaves the host alone); "rejects" means it failed to load it.
 * The table's libcni-1.1 column must be what this containerd (Debian's 1.6, libcni 1.1) says, so that the table
 * cannot drift from the runtime.
 */
@RealRuntime
class ContainerdVerdictsIT
{
    static final Path CORPUS = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("../core/src/test/resources/libcni").normalize();

    @Test
    void containerdJudgesEveryCorpusFileAsTheTableSays(Sandbox sandbox)
            throws IOException
    {
        try (RuntimeNode node = sandbox.node("verdicts")) {
            node.useBridgeStub();
            List<Verdicts.Row> rows = Verdicts.read(CORPUS.resolve("verdicts.tsv"));
            List<String> disagreements = new ArrayList<>();
            int loads = 0;
            StringBuilder table = new StringBuilder();
            for (Verdicts.Row row : rows) {
                clear(node.confDir());
                Files.copy(CORPUS.resolve("files").resolve(row.file()), node.confDir().resolve("10-" + row.file()));
                Commands.Result run = sandbox.containerd().run(node, "ip", "-4", "addr", "show", "lo");
                boolean loaded = loaded(run);
                loads += loaded ? 1 : 0;
                table.append(String.format("  %-40s %-8s %s%n", row.file(), loaded ? "loads" : "rejects", loaded ? "" : firstLine(run.err())));
                if (loaded != row.libcni11()) {
                    disagreements.add(row.file() + ": the table says libcni 1.1 " + (row.libcni11() ? "loads" : "rejects") + " it, containerd "
                            + (loaded ? "loaded it" : "rejected it: " + firstLine(run.err())));
                }
            }
            long disagreeing = rows.stream().filter(row -> row.libcni11() != row.libcni13()).count();
            Steps.say("containerd over the libcni corpus: " + loads + " of " + rows.size() + " files load, " + (rows.size() - loads) + " are rejected; "
                    + disagreeing + " where libcni 1.1 and 1.3 disagree\n" + table);
            assertThat(disagreements).as("the table's libcni-1.1 column against containerd").isEmpty();
        }
    }

    /**
     * Past loading: the container ran, or a plugin of the file failed when run (go-cni's {@code plugin type="..."
     * failed}: it was loaded to be run). Any other failure is containerd refusing the file ("failed to load CNI config
     * ...", "failed to convert CNI config file ...").
     */
    static boolean loaded(Commands.Result run)
    {
        return run.code() == 0 || run.err().contains("plugin type=\"");
    }

    private static String firstLine(String text)
    {
        return text.lines().filter(line -> !line.isBlank()).findFirst().orElse("").replaceFirst("^ctr: ", "");
    }

    private static void clear(Path dir)
            throws IOException
    {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
    }
}
