package io.cnichain.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Percentiles by the nearest-rank rule: the p99 of 100 trials is the 99th smallest, not the largest. */
final class Stats
{
    private Stats() {}

    static double percentile(List<Double> values, double p)
    {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    static double median(List<Double> values)
    {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static double min(List<Double> values)
    {
        return Collections.min(values);
    }

    static double max(List<Double> values)
    {
        return Collections.max(values);
    }

    /** The smallest number of trials for which a percentile is not simply the largest value. */
    static int trialsFor(double p)
    {
        return (int) Math.ceil(100.0 / (100.0 - p));
    }
}
