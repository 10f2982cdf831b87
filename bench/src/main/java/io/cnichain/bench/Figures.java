package io.cnichain.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The figures of one run, by program and figure name, in the order they were taken. */
final class Figures
{
    private final Map<String, Map<String, Double>> values = new LinkedHashMap<>();
    private final Map<String, Map<String, String>> notes = new LinkedHashMap<>();
    private final List<String> failures = new ArrayList<>();

    void put(String program, String figure, double value)
    {
        values.computeIfAbsent(program, p -> new LinkedHashMap<>()).put(figure, value);
    }

    void note(String program, String figure, String text)
    {
        notes.computeIfAbsent(program, p -> new LinkedHashMap<>()).put(figure, text);
    }

    /** A correctness failure: the run's figures cannot be trusted, and the benchmark exits 1. */
    void fail(String what)
    {
        failures.add(what);
        System.out.println("  FAILED: " + what);
    }

    Map<String, Map<String, Double>> values()
    {
        return values;
    }

    Map<String, Map<String, String>> notes()
    {
        return notes;
    }

    List<String> failures()
    {
        return failures;
    }
}
