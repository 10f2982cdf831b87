package io.cnichain.core.discovery;

import io.cnichain.testkit.Golden;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * Each file of {@code libcni/files} is decided as libcni 1.3 decides it: the table {@code libcni/verdicts.tsv} holds
 * the runtime's verdict per libcni generation and why (1.1 measured with containerd by the real-runtime suite, 1.3
 * from reading its source); the parser must agree with 1.3.
 * A file the runtime loads and we call broken would be skipped while the runtime loads it without our entry; a file
 * the runtime rejects and we call valid would be patched for nothing.
 */
class LibcniVerdictsTest
{
    static final Path DIR = Golden.resource("libcni");

    /**
     * @param loads    libcni 1.3's verdict, the one the parser follows by default
     * @param loads11  libcni 1.1's, measured with containerd
     */
    record Verdict(String file, boolean loads, boolean loads11, String why) {}

    static Stream<Verdict> verdicts()
            throws IOException
    {
        return Files.readAllLines(DIR.resolve("verdicts.tsv")).stream()
                .filter(line -> !line.isBlank() && !line.startsWith("#"))
                .map(line -> line.split("\t"))
                .map(cols -> {
                    if (cols.length != 4 || !List.of("loads", "rejects").contains(cols[1])) {
                        throw new IllegalArgumentException("not file, 1.1 verdict, 1.3 verdict, why: " + String.join(" | ", cols));
                    }
                    return new Verdict(cols[0], switch (cols[2]) {
                        case "loads" -> true;
                        case "rejects" -> false;
                        default -> throw new IllegalArgumentException("verdict of " + cols[0] + " is neither loads nor rejects: " + cols[2]);
                    }, cols[1].equals("loads"), cols[3]);
                });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("verdicts")
    void decidedAsLibcniDecides(Verdict verdict)
            throws IOException
    {
        byte[] bytes = Files.readAllBytes(DIR.resolve("files").resolve(verdict.file()));
        if (verdict.loads()) {
            try {
                CniConfigParser.parse(verdict.file(), bytes);
            }
            catch (CniConfigParser.InvalidConfigException e) {
                fail(verdict.file() + " loads in the runtime (" + verdict.why() + ") but was refused: " + e.getMessage());
            }
        }
        else {
            assertThatThrownBy(() -> CniConfigParser.parse(verdict.file(), bytes)).as(verdict.file() + ": " + verdict.why())
                    .isInstanceOf(CniConfigParser.InvalidConfigException.class);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("verdicts")
    void decidedAsLibcni11DecidesWhenAskedFor(Verdict verdict)
            throws IOException
    {
        byte[] bytes = Files.readAllBytes(DIR.resolve("files").resolve(verdict.file()));
        boolean loads;
        try {
            CniConfigParser.parse(verdict.file(), bytes, LibcniGeneration.V1_1);
            loads = true;
        }
        catch (CniConfigParser.InvalidConfigException e) {
            loads = false;
        }
        assertThat(loads).as(verdict.file() + " under libcni 1.1's rules: " + verdict.why()).isEqualTo(verdict.loads11());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("verdicts")
    void everyFileIsInTheTableAndEveryRowHasItsFile(Verdict verdict)
            throws IOException
    {
        assertThat(DIR.resolve("files").resolve(verdict.file())).isRegularFile();
        try (Stream<Path> files = Files.list(DIR.resolve("files"))) {
            List<String> listed = verdicts().map(Verdict::file).toList();
            assertThat(files.map(p -> p.getFileName().toString())).allMatch(listed::contains);
        }
    }

    @org.junit.jupiter.api.Test
    void whatTheRuntimeRunsIsWhatWeReport()
            throws IOException
    {
        byte[] capitals = Files.readAllBytes(DIR.resolve("files/type-key-in-capitals.conflist"));
        assertThat(CniConfigParser.parse("x.conflist", capitals).summary().pluginTypes()).containsExactly("bridge");
        byte[] duplicates = Files.readAllBytes(DIR.resolve("files/duplicate-plugins-last-wins.conflist"));
        assertThat(CniConfigParser.parse("x.conflist", duplicates).summary().pluginTypes()).containsExactly("bridge");
        byte[] utf8 = Files.readAllBytes(DIR.resolve("files/invalid-utf8-in-string.conflist"));
        assertThat(CniConfigParser.parse("x.conflist", utf8).text()).contains("caf\uFFFD \uFFFD");
    }
}
