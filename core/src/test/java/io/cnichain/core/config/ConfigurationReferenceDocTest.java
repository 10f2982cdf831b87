package io.cnichain.core.config;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration reference (docs/configuration.md) is the settings table rendered ({@link Settings#markdownTable()}), byte for
 * byte. After changing the table, {@code -Dreadme.update=true} rewrites the doc's table; review the diff.
 */
class ConfigurationReferenceDocTest
{
    static final Path DOC = Path.of(System.getProperty("basedir", "")).toAbsolutePath().resolve("../docs/configuration.md").normalize();
    static final String SECTION = "# Configuration reference";
    static final String HEADER = "| YAML key | flag | environment | default | meaning |";

    @Test
    void theDocsTableIsTheSettingsTable()
            throws IOException
    {
        List<String> lines = new ArrayList<>(Files.readAllLines(DOC, StandardCharsets.UTF_8));
        int section = lines.indexOf(SECTION);
        assertThat(section).as("docs/configuration.md has a section '%s'", SECTION).isNotNegative();
        int start = section;
        while (start < lines.size() && !lines.get(start).equals(HEADER)) {
            start++;
        }
        assertThat(start).as("the section '%s' holds a table starting '%s'", SECTION, HEADER).isLessThan(lines.size());
        int end = start;
        while (end < lines.size() && lines.get(end).startsWith("|")) {
            end++;
        }
        String inReadme = String.join("\n", lines.subList(start, end)) + "\n";
        String rendered = Settings.markdownTable();
        if (Boolean.getBoolean("readme.update") && !inReadme.equals(rendered)) {
            lines.subList(start, end).clear();
            lines.addAll(start, rendered.lines().toList());
            Files.writeString(DOC, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
            return;
        }
        assertThat(inReadme)
                .as("docs/configuration.md's configuration reference must be the table in io.cnichain.core.config.Settings; after changing the table, "
                        + "regenerate it with  mvn -o -pl core -am test -Dtest=ConfigurationReferenceDocTest -Dsurefire.failIfNoSpecifiedTests=false -Dreadme.update=true  and review the diff")
                .isEqualTo(rendered);
    }
}
