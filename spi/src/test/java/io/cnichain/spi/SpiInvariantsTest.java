package io.cnichain.spi;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the SPI itself promises, whatever the core does with it. */
class SpiInvariantsTest
{
    static final Path CONF_DIR = Path.of("/etc/cni/net.d");

    static ConfigEntry file(String name)
    {
        Path path = CONF_DIR.resolve(name);
        return new ConfigEntry(name, path, ConfigEntry.EntryKind.FILE, List.of(), Optional.of(path), Optional.empty(), true);
    }

    static ConfigEntry dangling(String name)
    {
        Path path = CONF_DIR.resolve(name);
        return new ConfigEntry(name, path, ConfigEntry.EntryKind.SYMLINK, List.of(path), Optional.empty(),
                Optional.of(path + ": dangling link"), true);
    }

    @Test
    void anEntryHasEitherAResolvedFileOrAProblem()
    {
        Path path = CONF_DIR.resolve("x.conflist");
        assertThatThrownBy(() -> new ConfigEntry("x.conflist", path, ConfigEntry.EntryKind.FILE, List.of(), Optional.of(path), Optional.of("no"), true))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConfigEntry("x.conflist", path, ConfigEntry.EntryKind.FILE, List.of(), Optional.empty(), Optional.empty(), true))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConfigEntry(null, path, ConfigEntry.EntryKind.FILE, List.of(), Optional.of(path), Optional.empty(), true))
                .isInstanceOf(NullPointerException.class).hasMessage("name is null");
        assertThat(file("x.conflist").resolves()).isTrue();
        assertThat(file("x.conflist").isSymlink()).isFalse();
        assertThat(dangling("y.conflist").resolvedFileName()).isEmpty();
    }

    @Test
    void anEntrysLinkChainCannotBeChangedAfterwards()
    {
        List<Path> chain = new ArrayList<>(List.of(CONF_DIR.resolve("a")));
        ConfigEntry entry = new ConfigEntry("a", CONF_DIR.resolve("a"), ConfigEntry.EntryKind.SYMLINK, chain, Optional.of(CONF_DIR.resolve("b")),
                Optional.empty(), false);
        chain.add(CONF_DIR.resolve("c"));
        assertThat(entry.linkChain()).containsExactly(CONF_DIR.resolve("a"));
        assertThatThrownBy(() -> entry.linkChain().add(CONF_DIR)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aTargetCanOnlyBeMadeFromAnEntryThatResolves()
    {
        ConfigTarget target = ConfigTarget.of(file("10-a.conflist"), "because");
        assertThat(target.path()).isEqualTo(CONF_DIR.resolve("10-a.conflist"));
        assertThat(target.resolvedFile()).isEqualTo(CONF_DIR.resolve("10-a.conflist"));
        assertThatThrownBy(() -> ConfigTarget.of(dangling("10-b.conflist"), "because"))
                .isInstanceOfSatisfying(AdapterException.class, e -> {
                    assertThat(e.code()).isEqualTo(AdapterException.Code.NOT_PATCHABLE);
                    assertThat(e.getMessage()).isEqualTo("/etc/cni/net.d/10-b.conflist: cannot be patched: /etc/cni/net.d/10-b.conflist: dangling link");
                });
    }

    @Test
    void parseResultsAreExactlyValidOrFailed()
    {
        CniConfig config = new CniConfig(CniConfig.Format.LIST, "net", Optional.of("1.0.0"), List.of("bridge"));
        ParseResult valid = new ParseResult.Valid(config);
        ParseResult failed = new ParseResult.Failed(ParseResult.Reason.INVALID, "/x: is not valid JSON");
        assertThat(valid.isValid()).isTrue();
        assertThat(valid.config()).contains(config);
        assertThat(valid.error()).isEmpty();
        assertThat(failed.isValid()).isFalse();
        assertThat(failed.config()).isEmpty();
        assertThat(failed.error()).contains("/x: is not valid JSON");
        assertThat(failed).isInstanceOfSatisfying(ParseResult.Failed.class, f -> assertThat(f.reason()).isEqualTo(ParseResult.Reason.INVALID));
        assertThat(ParseResult.class.getPermittedSubclasses()).as("sealed: an adapter handles every case")
                .containsExactlyInAnyOrder(ParseResult.Valid.class, ParseResult.Failed.class);
    }

    @Test
    void detectionScoresAddUpThePublishedWeights()
    {
        assertThat(Detection.PLATFORM_FILE).isGreaterThan(Detection.PLATFORM_BINARY);
        assertThat(Detection.PLATFORM_BINARY).isGreaterThan(Detection.HINT);
        assertThat(Detection.HINT).isGreaterThan(Detection.FALLBACK);
        assertThat(Detection.FALLBACK).isPositive();
        Detection detection = Detection.builder()
                .add(Detection.PLATFORM_FILE, "10-x.conflist present")
                .add(Detection.PLATFORM_BINARY, "x-cni in the bin dir")
                .note("10-x.conflist is a link")
                .build();
        assertThat(detection.score()).isEqualTo(150);
        assertThat(detection.evidence()).containsExactly("10-x.conflist present", "x-cni in the bin dir", "10-x.conflist is a link");
        assertThat(detection.matched()).isTrue();
        assertThat(Detection.none().matched()).isFalse();
        assertThatThrownBy(() -> Detection.of(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Detection.builder().add(-5, "x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void confFileSettingNamesAFileInTheConfDirOrIsRefusedNamingTheAdapterAndKey()
    {
        NodeView node = new FixedView();
        AdapterSettings none = AdapterSettings.empty("acme");
        assertThat(none.fileInConfDir("confFile", node)).isEmpty();
        assertThat(settings("10-acme.conflist-current").fileInConfDir("confFile", node)).contains("10-acme.conflist-current");
        assertThat(settings("/etc/cni/net.d/10-acme.conflist").fileInConfDir("confFile", node)).contains("10-acme.conflist");
        Map<String, String> refused = Map.of(
                "", "must be a file name in the conf dir /etc/cni/net.d (or an absolute path in it)",
                "..", "must be a file name in the conf dir /etc/cni/net.d (or an absolute path in it)",
                "net.d/10-acme.conflist", "must be a file name in the conf dir /etc/cni/net.d (or an absolute path in it)",
                "/etc/cni/10-acme.conflist", "must name a file in the conf dir /etc/cni/net.d",
                ".10-acme.conflist", "names a file that is never a configuration (a hidden file, a backup, a temp file or a kubeconfig)");
        refused.forEach((value, reason) -> assertThatThrownBy(() -> settings(value).fileInConfDir("confFile", node))
                .as(value)
                .isInstanceOfSatisfying(AdapterException.class, e -> {
                    assertThat(e.code()).isEqualTo(AdapterException.Code.INVALID_SETTING);
                    assertThat(e.getMessage()).isEqualTo("adapters.acme.confFile: '" + value + "' " + reason);
                }));
    }

    @Test
    void anAdapterNeedsOnlyThreeMethodsAndEveryDefaultIsEmpty()
    {
        CniPlatformAdapter minimal = new CniPlatformAdapter()
        {
            @Override
            public String name()
            {
                return "minimal";
            }

            @Override
            public Detection detect(NodeView node, AdapterSettings settings)
            {
                return Detection.none();
            }

            @Override
            public List<ConfigTarget> authoritativeConfigs(NodeView node, AdapterSettings settings)
            {
                return List.of();
            }
        };
        NodeView node = new FixedView();
        AdapterSettings settings = AdapterSettings.empty("minimal");
        assertThat(minimal.description()).isEqualTo("minimal");
        assertThat(minimal.settingNames()).isEmpty();
        assertThat(minimal.watchDirectories(node, settings)).isEmpty();
        assertThat(minimal.warnings(node, settings)).isEmpty();
        assertThat(minimal.fightHint()).isEmpty();
        assertThat(minimal.incompleteReason(ConfigTarget.of(file("a.conflist"), "x"),
                new CniConfig(CniConfig.Format.LIST, "n", Optional.empty(), List.of("a")), settings)).isEmpty();
    }

    @Test
    void theSpiVersionComesFromTheBuildAndNamesItsCompatibleRange()
    {
        assertThat(SpiVersion.CURRENT).matches("\\d+\\.\\d+\\.\\d+");
        assertThat(SpiVersion.CURRENT).startsWith(SpiVersion.MAJOR + ".");
        assertThat(SpiVersion.COMPATIBLE_RANGE).isEqualTo(">=" + SpiVersion.MAJOR + ".0.0 & <" + (SpiVersion.MAJOR + 1) + ".0.0");
        // The parent POM's spi.requires, written into every plugin's manifest, is the same range.
        assertThat(System.getProperty("spi.requires", SpiVersion.COMPATIBLE_RANGE)).isEqualTo(SpiVersion.COMPATIBLE_RANGE);
    }

    static AdapterSettings settings(String confFile)
    {
        return new AdapterSettings("acme", Map.of("confFile", confFile));
    }

    /** The smallest view: a conf dir and the core's naming rule for hidden files. */
    static final class FixedView
            implements NodeView
    {
        @Override
        public Path confDir()
        {
            return CONF_DIR;
        }

        @Override
        public Path binDir()
        {
            return Path.of("/opt/cni/bin");
        }

        @Override
        public List<ConfigEntry> entries()
        {
            return List.of();
        }

        @Override
        public Optional<ConfigEntry> entry(String fileName)
        {
            return Optional.empty();
        }

        @Override
        public ConfigEntry inspect(Path hostPath)
        {
            return new ConfigEntry(hostPath.getFileName().toString(), hostPath, ConfigEntry.EntryKind.OTHER, List.of(), Optional.empty(),
                    Optional.of(hostPath + ": does not exist"), false);
        }

        @Override
        public ParseResult parse(ConfigEntry entry)
        {
            return new ParseResult.Failed(ParseResult.Reason.UNREADABLE, entry.problem().orElse(""));
        }

        @Override
        public Optional<ConfigEntry> effectiveConfig()
        {
            return Optional.empty();
        }

        @Override
        public boolean hasBinary(String name)
        {
            return false;
        }

        @Override
        public boolean isNeverConfig(String fileName)
        {
            return fileName.startsWith(".");
        }
    }
}
