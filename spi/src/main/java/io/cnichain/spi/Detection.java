package io.cnichain.spi;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The result of {@link CniPlatformAdapter#detect(NodeView, AdapterSettings)}: how strongly the node looks like the
 * adapter's platform, and why. With {@code adapter: auto} every adapter scores the node and the highest score wins;
 * a tie goes to the adapter whose name sorts first. Scores are comparable between adapters only if every adapter
 * uses the same scale, so add up the published weights below for what you saw ({@link Builder} does it).
 *
 * @param score    zero when the platform is not recognised, higher is stronger; never negative
 * @param evidence what was seen, one human-readable item each, naming the file or binary
 */
public record Detection(int score, List<String> evidence)
{
    /** The platform's own configuration file is present (for example {@code 05-cilium.conflist}). */
    public static final int PLATFORM_FILE = 100;
    /** The platform's plugin binaries are in the bin dir. */
    public static final int PLATFORM_BINARY = 50;
    /** The configuration the runtime loads holds the platform's plugin types. */
    public static final int PLATFORM_PLUGIN_LOADED = 50;
    /** A weak hint: leftovers, backups, the platform's naming on a file that is not its configuration. */
    public static final int HINT = 10;
    /** The fallback adapter, which applies to any node with a configuration; below every platform's evidence. */
    public static final int FALLBACK = 1;

    public Detection
    {
        if (score < 0) {
            throw new IllegalArgumentException("score is negative: " + score);
        }
        evidence = List.copyOf(requireNonNull(evidence, "evidence is null"));
    }

    /**
     * @return a detection with score zero and no evidence
     */
    public static Detection none()
    {
        return new Detection(0, List.of());
    }

    /**
     * @param score    the score
     * @param evidence the items of evidence
     * @return a detection with that score and evidence
     */
    public static Detection of(int score, String... evidence)
    {
        return new Detection(score, List.of(evidence));
    }

    /**
     * @return a builder that adds up weights and collects evidence
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * @return whether the adapter recognised its platform at all
     */
    public boolean matched()
    {
        return score > 0;
    }

    /** Adds up weights ({@link #PLATFORM_FILE} and the others) with the evidence for each. */
    public static final class Builder
    {
        private int score;
        private final List<String> evidence = new ArrayList<>();

        private Builder() {}

        /**
         * @param weight   what this item of evidence is worth, usually one of the published weights
         * @param evidence what was seen
         * @return this builder
         */
        public Builder add(int weight, String evidence)
        {
            if (weight < 0) {
                throw new IllegalArgumentException("weight is negative: " + weight);
            }
            score += weight;
            this.evidence.add(requireNonNull(evidence, "evidence is null"));
            return this;
        }

        /**
         * Adds evidence that is worth nothing by itself (a detail of an item already counted).
         *
         * @param evidence what was seen
         * @return this builder
         */
        public Builder note(String evidence)
        {
            return add(0, evidence);
        }

        /**
         * @return the detection
         */
        public Detection build()
        {
            return new Detection(score, evidence);
        }
    }
}
