package io.cnichain.core.discovery;

import io.cnichain.core.SeededCases;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime's order of names, compared without encoding them, is the order of their UTF-8 bytes. Each case is two
 * names made from its seed ({@link SeededCases}).
 */
class ByteOrderPropertiesTest
{
    /** A small alphabet that crosses every UTF-8 length and the surrogates, paired or not. */
    private static final List<String> PIECES = List.of("a", "Z", "-", ".", "\u007f", "\u0080", "\u00e9", "\u07ff", "\u0800", "\ud7ff",
            "\ue000", "\uffff", "\ud83d\ude00", "\ud800\udc00", "\udbff\udfff", "\ud800", "\udc00", "\ufffd");

    static LongStream sameSignAsTheBytes()
    {
        return SeededCases.seeds("sameSignAsTheBytes", 5000);
    }

    @ParameterizedTest(name = "[{index}] seed {0}")
    @MethodSource
    void sameSignAsTheBytes(long seed)
    {
        RandomGenerator random = new SplittableRandom(seed);
        String a = name(random);
        String b = name(random);
        int bytes = Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
        assertThat(Integer.signum(NodeSnapshot.BYTE_ORDER.compare(a, b))).as("seed %d: %s vs %s", seed, escaped(a), escaped(b))
                .isEqualTo(Integer.signum(bytes));
    }

    /** Up to six pieces. */
    private static String name(RandomGenerator random)
    {
        return String.join("", SeededCases.list(random, 0, 6, () -> SeededCases.pick(random, PIECES)));
    }

    /** The UTF-16 units, so that a lone surrogate shows in the failure. */
    private static String escaped(String name)
    {
        return '"' + name.chars().mapToObj(c -> c < 0x80 ? String.valueOf((char) c) : String.format("\\u%04x", c)).collect(Collectors.joining()) + '"';
    }
}
