package io.cnichain.core.config;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shipped {@code conf/cni-chain.yaml} shows every key of the settings table and no other (distribution's
 * LauncherTest checks that it loads to exactly the defaults).
 */
class ShippedConfigurationKeysTest
{
    static final Path SHIPPED = Path.of(System.getProperty("basedir", "")).toAbsolutePath()
            .resolve("../distribution/src/dist/conf/cni-chain.yaml").normalize();

    @Test
    void shippedFileHoldsExactlyTheTablesKeys()
            throws IOException
    {
        Object loaded = new Yaml().load(Files.readString(SHIPPED, StandardCharsets.UTF_8));
        Set<String> tableKeys = new TreeSet<>(Settings.yamlKeys());
        Set<String> fileKeys = new TreeSet<>();
        collectKeys((Map<?, ?>) loaded, "", tableKeys, fileKeys);
        assertThat(fileKeys)
                .as("%s must show every YAML key of io.cnichain.core.config.Settings (with its default, or null where the default is "
                        + "computed) and no other key", SHIPPED)
                .containsExactlyElementsOf(tableKeys);
    }

    /** The file's keys, dotted; what lies under a setting's own key (a mapping such as plugin.config) is its value. */
    private static void collectKeys(Map<?, ?> section, String prefix, Set<String> tableKeys, Set<String> keys)
    {
        section.forEach((name, value) -> {
            String key = prefix + name;
            if (!tableKeys.contains(key) && value instanceof Map<?, ?> inner) {
                collectKeys(inner, key + ".", tableKeys, keys);
            }
            else {
                keys.add(key);
            }
        });
    }
}
