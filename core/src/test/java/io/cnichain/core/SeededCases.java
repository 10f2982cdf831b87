package io.cnichain.core;

import org.junit.jupiter.api.function.Executable;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import java.util.stream.LongStream;

/**
 * Generated cases for parameterized tests: each case is built from its own seed alone, and the seed is the case's
 * argument, so it shows in the display name ({@code [12] seed -4713...}) and in the failure. The seeds are the same
 * every run. {@code -Dcnichain.seed=<seed>} (with {@code -Dtest=Class#method}) runs that one case again;
 * {@code -Dcnichain.seeds=<any number>} draws other seeds, to look beyond the usual cases.
 */
public final class SeededCases
{
    private SeededCases() {}

    /**
     * @param property names the test, so that each one tries its own cases
     * @param cases    how many seeds
     */
    public static LongStream seeds(String property, int cases)
    {
        String replay = System.getProperty("cnichain.seed", "").strip();
        if (!replay.isEmpty()) {
            return LongStream.of(Long.parseLong(replay));
        }
        long base = property.hashCode() ^ Long.parseLong(System.getProperty("cnichain.seeds", "0").strip());
        SplittableRandom seeds = new SplittableRandom(base);
        return LongStream.generate(seeds::nextLong).limit(cases);
    }

    /** Runs a check of a generated case; whatever it throws names the seed and the case. */
    public static void check(long seed, Object generated, Executable check)
    {
        try {
            check.execute();
        }
        catch (Throwable e) {
            throw new AssertionError("seed " + seed + " (-Dcnichain.seed=" + seed + " replays it), generated: " + generated + "\n" + e.getMessage(), e);
        }
    }

    public static <T> T pick(RandomGenerator random, List<T> choices)
    {
        return choices.get(random.nextInt(choices.size()));
    }

    /** Between {@code min} and {@code max} elements, both included. */
    public static <T> List<T> list(RandomGenerator random, int min, int max, Supplier<T> element)
    {
        int size = random.nextInt(min, max + 1);
        List<T> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            list.add(element.get());
        }
        return list;
    }
}
