package io.cnichain.spi;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The result of {@link CniPlatformAdapter#detect(NodeView)}: how strongly the node looks like the adapter's
 * platform, and why.
 *
 * @param score    zero when the platform is not recognised, higher is stronger; never negative
 * @param evidence what was seen, one human-readable item each ("cilium-cni in the bin dir")
 */
public record Detection(int score, List<String> evidence)
{
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
     * @return whether the adapter recognised its platform at all
     */
    public boolean matched()
    {
        return score > 0;
    }
}
