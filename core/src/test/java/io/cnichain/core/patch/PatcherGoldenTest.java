package io.cnichain.core.patch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.CniChainException;
import io.cnichain.core.config.PluginEntry;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.json.CniJson;
import io.cnichain.testkit.Golden;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Golden tests for the patcher: each directory under {@code golden/patcher} holds one input file, under the
 * name it has on a node, and what install and then uninstall make of it. Platform samples, files as jq, Go's
 * json.MarshalIndent and Python's json.dump write them (the patch keeps each file's own style), and a library of
 * malformed files. The oversized case is generated at test time rather than committed.
 */
class PatcherGoldenTest
{
    static final Path CASES = Golden.resource("golden", "patcher");
    static final String OVERSIZED = "oversized-2mib";
    static final ObjectNode ENTRY = new PluginEntry((ObjectNode) CniJson.parse(PluginEntry.LINKERD_DEFAULT.getBytes(StandardCharsets.UTF_8)), "test")
            .render(Path.of("/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig"));

    @TempDir
    Path temp;

    static Stream<String> cases()
            throws IOException
    {
        try (Stream<Path> dirs = Files.list(CASES)) {
            return dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void installThenUninstall(String name)
            throws IOException
    {
        Path dir = CASES.resolve(name);
        Input input = input(dir);

        Outcome installed = install(input);
        Golden.check(dir.resolve("install.golden"), installed.render());

        Input afterInstall = installed.file().orElse(input);
        Outcome uninstalled = uninstall(afterInstall);
        Golden.check(dir.resolve("uninstall.golden"), uninstalled.render());

        // Round trip: what uninstall leaves is what there was, byte for byte, whenever install wrote something
        // (a file that held our entry before install cannot come back with it).
        if (installed.file().isPresent() && !name.contains("ours")) {
            Input after = uninstalled.file().orElse(afterInstall);
            assertThat(after.name()).isEqualTo(input.name());
            assertThat(new String(after.bytes(), StandardCharsets.UTF_8)).isEqualTo(new String(input.bytes(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void everyMalformedCaseIsRefusedAndLeftUntouched()
            throws IOException
    {
        for (String name : List.of("not-json", "empty", "no-plugins", "plugins-not-array", "plugin-not-object",
                "conf-without-type", "utf8-bom", "trailing-garbage", OVERSIZED)) {
            Outcome installed = install(input(CASES.resolve(name)));
            assertThat(installed.render()).as(name).startsWith("refused: ");
            assertThat(installed.file()).as(name).isEmpty();
        }
    }

    @Test
    void installIsIdempotent()
            throws IOException
    {
        for (String name : cases().toList()) {
            Outcome first = install(input(CASES.resolve(name)));
            if (first.file().isPresent()) {
                Outcome second = install(first.file().get());
                assertThat(second.render()).as(name).startsWith("unchanged: ");
            }
        }
    }

    private Input input(Path dir)
            throws IOException
    {
        if (dir.getFileName().toString().equals(OVERSIZED)) {
            // A valid list, padded with spaces to 2 MiB.
            byte[] head = CniJson.write(CniJson.parse("{\"name\":\"big\",\"cniVersion\":\"0.3.1\",\"plugins\":[{\"type\":\"bridge\"}]}".getBytes(StandardCharsets.UTF_8)));
            byte[] bytes = new byte[2 * 1024 * 1024];
            java.util.Arrays.fill(bytes, (byte) ' ');
            System.arraycopy(head, 0, bytes, 0, head.length);
            return new Input("10-big.conflist", bytes);
        }
        try (Stream<Path> files = Files.list(dir)) {
            Path file = files.filter(p -> !p.getFileName().toString().endsWith(".golden")).findFirst()
                    .orElseThrow(() -> new IllegalStateException(dir + " has no input file"));
            return new Input(file.getFileName().toString(), Files.readAllBytes(file));
        }
    }

    /** Reads the input back through the bounded reader, as the engine does, then plans. */
    private Outcome install(Input input)
            throws IOException
    {
        Optional<byte[]> bytes = readBounded(input);
        if (bytes.isEmpty()) {
            return new Outcome("refused: " + tooLargeReason(input), Optional.empty());
        }
        return render(ConfigFilePatcher.planInstall(input.name(), input.name(), bytes.get(), ENTRY), input);
    }

    private Outcome uninstall(Input input)
            throws IOException
    {
        Optional<byte[]> bytes = readBounded(input);
        if (bytes.isEmpty()) {
            return new Outcome("refused: " + tooLargeReason(input), Optional.empty());
        }
        return render(ConfigFilePatcher.planUninstall(input.name(), input.name(), bytes.get(), "linkerd-cni"), input);
    }

    private Optional<byte[]> readBounded(Input input)
            throws IOException
    {
        Path file = temp.resolve(input.name());
        Files.write(file, input.bytes());
        try {
            return Optional.of(new BoundedFileReader(BoundedFileReader.DEFAULT_LIMIT).read(file, Path.of(input.name())));
        }
        catch (CniChainException e) {
            return Optional.empty();
        }
    }

    private String tooLargeReason(Input input)
    {
        try {
            new BoundedFileReader(BoundedFileReader.DEFAULT_LIMIT).read(temp.resolve(input.name()), Path.of(input.name()));
            throw new IllegalStateException("expected a refusal");
        }
        catch (CniChainException e) {
            return e.getMessage();
        }
    }

    private static Outcome render(PatchPlan plan, Input input)
    {
        if (plan instanceof PatchPlan.Unchanged unchanged) {
            return new Outcome("unchanged: " + unchanged.reason() + "\n", Optional.empty());
        }
        if (plan instanceof PatchPlan.Refused refused) {
            return new Outcome("refused: " + refused.reason() + "\n", Optional.empty());
        }
        if (plan instanceof PatchPlan.Rewrite rewrite) {
            return new Outcome("rewrite " + input.name() + "\n" + new String(rewrite.content(), StandardCharsets.UTF_8),
                    Optional.of(new Input(input.name(), rewrite.content())));
        }
        PatchPlan.Replace replace = (PatchPlan.Replace) plan;
        return new Outcome("replace " + input.name() + " with " + replace.newName() + "\n" + new String(replace.content(), StandardCharsets.UTF_8),
                Optional.of(new Input(replace.newName(), replace.content())));
    }

    record Input(String name, byte[] bytes) {}

    record Outcome(String text, Optional<Input> file)
    {
        String render()
        {
            return text.endsWith("\n") ? text : text + "\n";
        }
    }

    static JsonNode tree(byte[] bytes)
    {
        return CniJson.parse(bytes);
    }
}
