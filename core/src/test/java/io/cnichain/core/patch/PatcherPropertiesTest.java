package io.cnichain.core.patch;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.config.PluginEntry;
import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.CniConfigParser.LoadedConfig;
import io.cnichain.core.SeededCases;
import io.cnichain.core.json.CniJson;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Properties of the patcher over generated configurations in every writing style: install then uninstall gives back
 * the same bytes; install is idempotent; foreign plugins keep their order and their exact text; the output always
 * loads as the runtime loads it and holds exactly one entry of ours, last (or where ours already stood); a single
 * plugin {@code .conf} comes back as it was. Each case is one configuration made from its seed ({@link SeededCases}); a
 * failing one, cut down by hand to what makes it fail, goes into PatcherGoldenTest's cases.
 */
class PatcherPropertiesTest
{
    static final ObjectNode ENTRY = new PluginEntry((ObjectNode) CniJson.parse(PluginEntry.LINKERD_DEFAULT.getBytes(StandardCharsets.UTF_8)), "test")
            .render(Path.of("/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig"));
    static final String TYPE = "linkerd-cni";

    record Case(String text, GeneratedConfigs.Style style) {}

    static Case list(long seed)
    {
        RandomGenerator random = new SplittableRandom(seed);
        GeneratedConfigs.Style style = GeneratedConfigs.style(random);
        return new Case(style.write(GeneratedConfigs.list(random)), style);
    }

    static Case single(long seed)
    {
        RandomGenerator random = new SplittableRandom(seed);
        GeneratedConfigs.Style style = GeneratedConfigs.style(random);
        return new Case(style.write(GeneratedConfigs.single(random)), style);
    }

    static LongStream installThenUninstallGivesBackTheSameBytes()
    {
        return SeededCases.seeds("installThenUninstallGivesBackTheSameBytes", 300);
    }

    static LongStream theOutputLoadsAndEndsWithExactlyOneEntryOfOursAndForeignPluginsKeepTheirText()
    {
        return SeededCases.seeds("theOutputLoadsAndEndsWithExactlyOneEntryOfOursAndForeignPluginsKeepTheirText", 300);
    }

    static LongStream installIsIdempotent()
    {
        return SeededCases.seeds("installIsIdempotent", 300);
    }

    static LongStream anEntryOfOursAlreadyThereIsReplacedWhereItStands()
    {
        return SeededCases.seeds("anEntryOfOursAlreadyThereIsReplacedWhereItStands", 200);
    }

    static LongStream aSinglePluginConfComesBackAsItWas()
    {
        return SeededCases.seeds("aSinglePluginConfComesBackAsItWas", 300);
    }

    @ParameterizedTest(name = "[{index}] seed {0}")
    @MethodSource
    void installThenUninstallGivesBackTheSameBytes(long seed)
    {
        Case input = list(seed);
        SeededCases.check(seed, input, () -> {
            String installed = rewrite(ConfigFilePatcher.planInstall("10-x.conflist", "10-x.conflist", bytes(input.text()), ENTRY));
            String uninstalled = rewrite(ConfigFilePatcher.planUninstall("10-x.conflist", "10-x.conflist", bytes(installed), TYPE));
            assertThat(uninstalled).isEqualTo(input.text());
        });
    }

    @ParameterizedTest(name = "[{index}] seed {0}")
    @MethodSource
    void theOutputLoadsAndEndsWithExactlyOneEntryOfOursAndForeignPluginsKeepTheirText(long seed)
    {
        Case input = list(seed);
        SeededCases.check(seed, input, () -> {
            LoadedConfig before = CniConfigParser.parse("10-x.conflist", bytes(input.text()));
            String installed = rewrite(ConfigFilePatcher.planInstall("10-x.conflist", "10-x.conflist", bytes(input.text()), ENTRY));
            LoadedConfig after = CniConfigParser.parse("10-x.conflist", bytes(installed));
            List<String> types = new ArrayList<>(before.summary().pluginTypes());
            types.add(TYPE);
            assertThat(after.summary().pluginTypes()).isEqualTo(types);
            assertThat(texts(after).subList(0, before.plugins().size())).isEqualTo(texts(before));
            assertThat(after.summary().networkName()).isEqualTo(before.summary().networkName());
        });
    }

    @ParameterizedTest(name = "[{index}] seed {0}")
    @MethodSource
    void installIsIdempotent(long seed)
    {
        Case input = list(seed);
        SeededCases.check(seed, input, () -> {
            String installed = rewrite(ConfigFilePatcher.planInstall("10-x.conflist", "10-x.conflist", bytes(input.text()), ENTRY));
            assertThat(ConfigFilePatcher.planInstall("10-x.conflist", "10-x.conflist", bytes(installed), ENTRY)).isInstanceOf(PatchPlan.Unchanged.class);
        });
    }

    @ParameterizedTest(name = "[{index}] seed {0}")
    @MethodSource
    void anEntryOfOursAlreadyThereIsReplacedWhereItStands(long seed)
    {
        Case input = list(seed);
        SeededCases.check(seed, input, () -> {
            // Put an old entry of ours (it has our name; one without is the primary's: refused) first, then install: one
            // entry, still first, every foreign plugin as it was.
            LoadedConfig before = CniConfigParser.parse("10-x.conflist", bytes(input.text()));
            int firstPlugin = before.pluginsArray().orElseThrow().elements().get(0).start();
            String old = "{\"name\":\"linkerd-cni\",\"type\":\"" + TYPE + "\",\"old\":true}" + (input.style().layout().indent == null ? input.style().layout().itemSeparator
                    : "," + input.text().substring(input.text().lastIndexOf('\n', firstPlugin), firstPlugin));
            String withOld = input.text().substring(0, firstPlugin) + old + input.text().substring(firstPlugin);
            String installed = rewrite(ConfigFilePatcher.planInstall("10-x.conflist", "10-x.conflist", bytes(withOld), ENTRY));
            LoadedConfig after = CniConfigParser.parse("10-x.conflist", bytes(installed));
            assertThat(after.summary().pluginTypes().get(0)).isEqualTo(TYPE);
            assertThat(after.count(TYPE)).isEqualTo(1);
            assertThat(texts(after).subList(1, after.plugins().size())).isEqualTo(texts(before));
            assertThat(installed).doesNotContain("\"old\"");
        });
    }

    @ParameterizedTest(name = "[{index}] seed {0}")
    @MethodSource
    void aSinglePluginConfComesBackAsItWas(long seed)
    {
        Case input = single(seed);
        SeededCases.check(seed, input, () -> {
            PatchPlan installed = ConfigFilePatcher.planInstall("10-x.conf", "10-x.conf", bytes(input.text()), ENTRY);
            assertThat(installed).isInstanceOf(PatchPlan.Replace.class);
            PatchPlan.Replace list = (PatchPlan.Replace) installed;
            assertThat(list.newName()).isEqualTo("10-x.conflist");
            LoadedConfig converted = CniConfigParser.parse("10-x.conflist", list.content());
            assertThat(converted.summary().pluginTypes()).hasSize(2).last().isEqualTo(TYPE);
            PatchPlan restored = ConfigFilePatcher.planUninstall("10-x.conflist", "10-x.conflist", list.content(), TYPE);
            assertThat(restored).isInstanceOfSatisfying(PatchPlan.Replace.class, back -> {
                assertThat(back.newName()).isEqualTo("10-x.conf");
                assertThat(new String(back.content(), StandardCharsets.UTF_8)).isEqualTo(input.text());
            });
        });
    }

    private static List<String> texts(LoadedConfig config)
    {
        return config.plugins().stream().map(p -> config.text().substring(p.value().start(), p.value().end())).toList();
    }

    private static String rewrite(PatchPlan plan)
    {
        assertThat(plan).isInstanceOf(PatchPlan.Rewrite.class);
        return new String(((PatchPlan.Rewrite) plan).content(), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
