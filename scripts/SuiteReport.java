import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The tally behind scripts/repeat-suite, from the JUnit XML reports that Surefire and Failsafe write.
 *
 * <pre>
 * java scripts/SuiteReport.java record RUN EXIT SECONDS RESULTS ROOT   one run's failed and skipped tests, appended to RESULTS
 * java scripts/SuiteReport.java table RUNS RESULTS                     per test: runs failed and skipped, of RUNS
 * </pre>
 */
public class SuiteReport
{
    public static void main(String[] args)
            throws Exception
    {
        if (args.length == 6 && args[0].equals("record")) {
            record(args[1], args[2], args[3], Path.of(args[4]), Path.of(args[5]));
        }
        else if (args.length == 3 && args[0].equals("table")) {
            table(Integer.parseInt(args[1]), Path.of(args[2]));
        }
        else {
            System.err.println("usage: SuiteReport record RUN EXIT SECONDS RESULTS ROOT | table RUNS RESULTS");
            System.exit(2);
        }
    }

    private static void record(String run, String exit, String seconds, Path results, Path root)
            throws Exception
    {
        List<Path> reports;
        try (Stream<Path> walk = Files.walk(root)) {
            reports = walk.filter(p -> p.getFileName().toString().startsWith("TEST-") && p.getFileName().toString().endsWith(".xml"))
                    .filter(p -> p.getParent().getFileName().toString().matches("(surefire|failsafe)-reports"))
                    .filter(p -> !p.toString().contains("/repeat-suite/"))
                    .sorted().toList();
        }
        int tests = 0;
        List<String> lines = new ArrayList<>();
        int failed = 0;
        int skipped = 0;
        for (Path report : reports) {
            NodeList cases = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(report.toFile()).getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element testCase = (Element) cases.item(i);
                tests++;
                String name = testCase.getAttribute("classname") + "#" + testCase.getAttribute("name");
                if (testCase.getElementsByTagName("failure").getLength() + testCase.getElementsByTagName("error").getLength() > 0) {
                    failed++;
                    lines.add(run + "\tFAILED\t" + name);
                }
                else if (testCase.getElementsByTagName("skipped").getLength() > 0) {
                    skipped++;
                    lines.add(run + "\tSKIPPED\t" + name);
                }
            }
        }
        lines.add(run + "\tRUN\t" + exit + "\t" + seconds + "\t" + tests + "\t" + failed + "\t" + skipped);
        Files.write(results, lines, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        System.out.printf("run %s: exit %s, %d tests, %d failed, %d skipped, %s s%n", run, exit, tests, failed, skipped, seconds);
    }

    private static void table(int runs, Path results)
            throws IOException
    {
        Map<String, int[]> byTest = new TreeMap<>();
        int green = 0;
        int recorded = 0;
        for (String line : Files.readAllLines(results, StandardCharsets.UTF_8)) {
            String[] cells = line.split("\t");
            if (cells[1].equals("RUN")) {
                recorded++;
                if (cells[2].equals("0") && cells[5].equals("0")) {
                    green++;
                }
            }
            else {
                int[] counts = byTest.computeIfAbsent(cells[2], k -> new int[2]);
                counts[cells[1].equals("FAILED") ? 0 : 1]++;
            }
        }
        System.out.printf("%d of %d runs green (exit 0 and no test failed)%n", green, recorded);
        if (byTest.isEmpty()) {
            System.out.println("no test failed or was skipped in any run");
            return;
        }
        System.out.println("| test | runs failed | runs skipped |");
        System.out.println("|---|---|---|");
        for (Map.Entry<String, int[]> row : byTest.entrySet()) {
            System.out.printf("| %s | %d of %d | %d of %d |%n", row.getKey(), row.getValue()[0], runs, row.getValue()[1], runs);
        }
    }
}
