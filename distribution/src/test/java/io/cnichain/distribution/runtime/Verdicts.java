package io.cnichain.distribution.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The libcni corpus's table ({@code verdicts.tsv}): per file, whether libcni 1.1 and 1.3 load it, and why. */
final class Verdicts
{
    private Verdicts() {}

    record Row(String file, boolean libcni11, boolean libcni13, String why) {}

    static List<Row> read(Path tsv)
            throws IOException
    {
        return Files.readAllLines(tsv).stream().filter(line -> !line.isBlank() && !line.startsWith("#")).map(line -> {
            String[] cols = line.split("\t");
            if (cols.length != 4) {
                throw new IllegalArgumentException(tsv + ": not file, 1.1, 1.3, why: " + line);
            }
            return new Row(cols[0], loads(cols[1]), loads(cols[2]), cols[3]);
        }).toList();
    }

    private static boolean loads(String verdict)
    {
        return switch (verdict) {
            case "loads" -> true;
            case "rejects" -> false;
            default -> throw new IllegalArgumentException("neither loads nor rejects: " + verdict);
        };
    }
}
