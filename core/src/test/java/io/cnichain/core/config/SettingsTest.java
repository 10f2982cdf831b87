package io.cnichain.core.config;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The settings table names each key, variable and flag once, and its defaults are the loader's defaults. */
class SettingsTest
{
    @Test
    void everyKeyVariableAndFlagBelongsToOneSetting()
    {
        List<String> keys = Settings.yamlKeys();
        List<String> variables = Settings.ALL.stream().flatMap(setting -> setting.environment().stream()).toList();
        List<String> flags = Settings.ALL.stream().flatMap(setting -> setting.flag().stream()).map(Setting.Flag::name).toList();
        assertThat(keys).doesNotHaveDuplicates();
        assertThat(variables).doesNotHaveDuplicates();
        assertThat(flags).doesNotHaveDuplicates().allMatch(flag -> flag.matches("--[a-z]+(-[a-z]+)*"));
        flags.forEach(flag -> assertThat(Settings.forFlag(flag)).get().extracting(setting -> setting.flag().orElseThrow().name()).isEqualTo(flag));
        assertThat(Settings.forFlag("--config")).isEmpty();
    }

    @Test
    void everySettingIsDocumentedOnOneLine()
    {
        for (Setting<?> setting : Settings.ALL) {
            assertThat(setting.doc()).as("%s", setting).isNotBlank().doesNotContain("\n");
            assertThat(setting.defaultDoc()).as("%s", setting).isNotBlank().doesNotContain("\n");
        }
    }

    @Test
    void documentedDefaultsAreWhatTheLoaderUses()
    {
        AgentConfig defaults = ConfigLoader.load(Optional.empty(), Map.of(), Map.of());
        assertThat(Settings.HOST_ROOT.defaultText()).contains(defaults.paths().hostRoot().toString());
        assertThat(Settings.KUBECONFIG_MODE.defaultText()).contains("0600");
        assertThat(Settings.SHUTDOWN_TIMEOUT.defaultText()).contains(Long.toString(defaults.run().shutdownTimeout().toSeconds()));
        assertThat(Settings.HEALTH_PORT.defaultText()).contains(Integer.toString(defaults.run().healthPort()));
        assertThat(Settings.ADAPTER.defaultText()).contains(defaults.adapters().choice().toString());
        assertThat(Settings.ALLOWED_ROOTS.defaultText()).as("computed from confDir").isEmpty();
    }
}
