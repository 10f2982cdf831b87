package io.cnichain.core.patch;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.config.PluginEntry;
import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.CniConfigParser.LoadedConfig;
import io.cnichain.core.json.CniJson;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Combinators;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Properties of the patcher over generated configurations in every writing style: install then uninstall gives back
 * the same bytes; install is idempotent; foreign plugins keep their order and their exact text; the output always
 * loads as the runtime loads it and holds exactly one entry of ours, last (or where ours already stood); a single
 * plugin {@code .conf} comes back as it was. A counterexample jqwik shrinks to goes into PatcherGoldenTest's cases.
 */
class PatcherPropertiesTest
{
    static final ObjectNode ENTRY = new PluginEntry((ObjectNode) CniJson.parse(PluginEntry.LINKERD_DEFAULT.getBytes(StandardCharsets.UTF_8)), "test")
            .render(Path.of("/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig"));
    static final String TYPE = "linkerd-cni";

    record Case(String text, GeneratedConfigs.Style style) {}

    @Provide
    Arbitrary<Case> lists()
    {
        return Combinators.combine(GeneratedConfigs.lists(), GeneratedConfigs.styles()).as((list, style) -> new Case(style.write(list), style));
    }

    @Provide
    Arbitrary<Case> singles()
    {
        return Combinators.combine(GeneratedConfigs.singles(), GeneratedConfigs.styles()).as((single, style) -> new Case(style.write(single), style));
    }

    @Property(tries = 300)
    void installThenUninstallGivesBackTheSameBytes(@ForAll("lists") Case input)
    {
        String installed = rewrite(ConfigFilePatcher.planInstall("10-x.conflist", "10-x.conflist", bytes(input.text()), ENTRY));
        String uninstalled = rewrite(ConfigFilePatcher.planUninstall("10-x.conflist", "10-x.conflist", bytes(installed), TYPE));
        assertThat(uninstalled).isEqualTo(input.text());
    }

    @Property(tries = 300)
    void theOutputLoadsAndEndsWithExactlyOneEntryOfOursAndForeignPluginsKeepTheirText(@ForAll("lists") Case input)
    {
        LoadedConfig before = CniConfigParser.parse("10-x.conflist", bytes(input.text()));
        String installed = rewrite(ConfigFilePatcher.planInstall("10-x.conflist", "10-x.conflist", bytes(input.text()), ENTRY));
        LoadedConfig after = CniConfigParser.parse("10-x.conflist", bytes(installed));
        List<String> types = new ArrayList<>(before.summary().pluginTypes());
        types.add(TYPE);
        assertThat(after.summary().pluginTypes()).isEqualTo(types);
        assertThat(texts(after).subList(0, before.plugins().size())).isEqualTo(texts(before));
        assertThat(after.summary().networkName()).isEqualTo(before.summary().networkName());
    }

    @Property(tries = 300)
    void installIsIdempotent(@ForAll("lists") Case input)
    {
        String installed = rewrite(ConfigFilePatcher.planInstall("10-x.conflist", "10-x.conflist", bytes(input.text()), ENTRY));
        assertThat(ConfigFilePatcher.planInstall("10-x.conflist", "10-x.conflist", bytes(installed), ENTRY)).isInstanceOf(PatchPlan.Unchanged.class);
    }

    @Property(tries = 200)
    void anEntryOfOursAlreadyThereIsReplacedWhereItStands(@ForAll("lists") Case input)
    {
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
    }

    @Property(tries = 300)
    void aSinglePluginConfComesBackAsItWas(@ForAll("singles") Case input)
    {
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
