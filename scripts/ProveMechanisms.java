import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Each mechanism of the agent, taken out one at a time, must fail a test: the list is agent/src/test/mechanisms.txt.
 * An entry whose tests all pass without it is a mechanism no test proves: prove it, or take it out for good.
 *
 * <pre>
 * java scripts/ProveMechanisms.java [ID...]     the entries named, or all of them; run from the repository's root
 * </pre>
 *
 * Each edit is made in the checkout and undone after its run (the agent's main code must have no uncommitted change).
 * It runs the entry's tests only ({@code tests:}), with the module's other dependencies as installed in ~/.m2. Tests of the
 * distribution module run against the distribution packaged with the edit ({@code mvn -pl agent,distribution package}),
 * so that an entry of the {@code Agent} class is proven by the agent as a real process.
 */
public class ProveMechanisms
{
    private static final Path LIST = Path.of("agent/src/test/mechanisms.txt");
    private static final Path SOURCES = Path.of("agent/src/main/java/io/cnichain/agent");

    record Edit(Path file, String before, String after) {}

    record Mechanism(String id, String what, String tests, List<Edit> edits, String unproven) {}

    public static void main(String[] args)
            throws Exception
    {
        List<Mechanism> mechanisms = parse(Files.readAllLines(LIST));
        List<String> only = List.of(args);
        Process status = new ProcessBuilder("git", "status", "--porcelain", "--", SOURCES.toString()).redirectErrorStream(true).start();
        if (!new String(status.getInputStream().readAllBytes()).isBlank()) {
            System.err.println("ProveMechanisms: " + SOURCES + " has uncommitted changes; commit or stash them first");
            System.exit(2);
        }
        Map<String, Integer> tally = new LinkedHashMap<>();
        long start = System.nanoTime();
        for (Mechanism mechanism : mechanisms) {
            if (!only.isEmpty() && !only.contains(mechanism.id())) {
                continue;
            }
            String verdict = mechanism.unproven().isEmpty() ? run(mechanism) : "UNPROVEN (" + mechanism.unproven() + ")";
            tally.merge(verdict.split(" ")[0], 1, Integer::sum);
            System.out.printf("%-5s %-9s %s%n", mechanism.id(), verdict.startsWith("UNPROVEN (") ? "UNPROVEN" : verdict.split(" ")[0], mechanism.what()
                    + (verdict.contains(" ") ? ": " + verdict.substring(verdict.indexOf(' ') + 1) : ""));
        }
        boolean distributionRan = false;
        for (Mechanism mechanism : mechanisms) {
            distributionRan |= (only.isEmpty() || only.contains(mechanism.id())) && mechanism.unproven().isEmpty() && !inAgent(mechanism.tests());
        }
        if (distributionRan) {
            // The distribution the last run left was packaged with an edit: package it again as it is.
            new ProcessBuilder(maven("none", false)).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        }
        System.out.println(tally + " in " + TimeUnit.NANOSECONDS.toMinutes(System.nanoTime() - start) + " min");
        System.exit(tally.getOrDefault("SURVIVED", 0) + tally.getOrDefault("BROKEN", 0) == 0 ? 0 : 1);
    }

    /** @return PROVEN (a test failed without it), SURVIVED (none did) or BROKEN (the edit does not apply, or does not compile) */
    private static String run(Mechanism mechanism)
            throws IOException, InterruptedException
    {
        Map<Path, String> originals = new LinkedHashMap<>();
        try {
            for (Edit edit : mechanism.edits()) {
                Path file = SOURCES.resolve(edit.file());
                String text = originals.containsKey(file) ? Files.readString(file) : remember(originals, file);
                int at = text.indexOf(edit.before());
                if (at < 0 || text.indexOf(edit.before(), at + 1) >= 0) {
                    return "BROKEN " + edit.file() + " holds the lines to take out " + (at < 0 ? "nowhere" : "more than once");
                }
                Files.writeString(file, text.replace(edit.before(), edit.after()));
            }
            Path log = Files.createTempFile("prove-" + mechanism.id() + "-", ".log");
            long start = System.nanoTime();
            Process maven = new ProcessBuilder(maven(mechanism.tests(), inAgent(mechanism.tests()))).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!maven.waitFor(15, TimeUnit.MINUTES)) {
                maven.destroyForcibly();
                return "BROKEN its tests did not end within 15 minutes; " + log;
            }
            String output = Files.readString(log);
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            if (output.contains("COMPILATION ERROR")) {
                return "BROKEN it does not compile without it; " + log;
            }
            if (maven.exitValue() == 0) {
                Files.delete(log);
                return "SURVIVED " + mechanism.tests() + " pass without it (" + seconds + " s)";
            }
            List<String> failed = output.lines().filter(line -> line.startsWith("[ERROR]   ") && !line.startsWith("[ERROR]   mvn ")).map(String::strip).distinct().limit(3).toList();
            if (failed.isEmpty()) {
                // Maven failed before any test could (a JDK too old for the module, a dependency not installed): proves nothing.
                return "BROKEN the run failed with no test failing; " + log;
            }
            Files.delete(log);
            return "PROVEN by " + String.join("; ", failed) + " (" + seconds + " s)";
        }
        finally {
            for (Map.Entry<Path, String> original : originals.entrySet()) {
                Files.writeString(original.getKey(), original.getValue());
            }
        }
    }

    /** @return whether every test named is the agent module's: they run there; the distribution's run against the distribution built with the edit */
    private static boolean inAgent(String tests)
            throws IOException
    {
        for (String test : tests.split(",")) {
            String name = test.split("#")[0] + ".java";
            try (var found = Files.walk(Path.of("agent/src/test/java"))) {
                if (found.noneMatch(file -> file.getFileName().toString().equals(name))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static List<String> maven(String tests, boolean inAgent)
    {
        List<String> command = new ArrayList<>(List.of("mvn", "-B", "-ntp", "-o"));
        command.addAll(inAgent ? List.of("-f", "agent", "test") : List.of("-pl", "agent,distribution", "package"));
        command.addAll(List.of("-Dtest=" + tests, "-Dsurefire.failIfNoSpecifiedTests=false"));
        return command;
    }

    private static String remember(Map<Path, String> originals, Path file)
            throws IOException
    {
        String text = Files.readString(file);
        originals.put(file, text);
        return text;
    }

    /**
     * Entries: {@code ## ID what it does}, then {@code tests: Class,Class#method}, then for each edit {@code file: loop/X.java}
     * and its lines, {@code - } for each line taken out and {@code + } for each put in; or {@code unproven: why} instead.
     */
    static List<Mechanism> parse(List<String> lines)
    {
        List<Mechanism> mechanisms = new ArrayList<>();
        String id = null;
        String what = "";
        String tests = "";
        String unproven = "";
        List<Edit> edits = new ArrayList<>();
        Path file = null;
        List<String> before = new ArrayList<>();
        List<String> after = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("## ") || line.startsWith("file: ")) {
                if (file != null) {
                    edits.add(new Edit(file, String.join("\n", before), String.join("\n", after)));
                    before.clear();
                    after.clear();
                    file = null;
                }
            }
            if (line.startsWith("## ")) {
                if (id != null) {
                    mechanisms.add(new Mechanism(id, what, tests, List.copyOf(edits), unproven));
                }
                String[] parts = line.substring(3).split(" ", 2);
                id = parts[0];
                what = parts.length > 1 ? parts[1] : "";
                tests = "";
                unproven = "";
                edits.clear();
            }
            else if (line.startsWith("tests: ")) {
                tests = line.substring(7).strip();
            }
            else if (line.startsWith("unproven: ")) {
                unproven = line.substring(10).strip();
            }
            else if (line.startsWith("file: ")) {
                file = Path.of(line.substring(6).strip());
            }
            else if (line.startsWith("- ") || line.equals("-")) {
                before.add(line.length() > 2 ? line.substring(2) : "");
            }
            else if (line.startsWith("+ ") || line.equals("+")) {
                after.add(line.length() > 2 ? line.substring(2) : "");
            }
        }
        if (file != null) {
            edits.add(new Edit(file, String.join("\n", before), String.join("\n", after)));
        }
        if (id != null) {
            mechanisms.add(new Mechanism(id, what, tests, List.copyOf(edits), unproven));
        }
        return mechanisms;
    }
}
