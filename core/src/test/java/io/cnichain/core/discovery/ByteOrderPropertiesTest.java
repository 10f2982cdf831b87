package io.cnichain.core.discovery;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** The runtime's order of names, compared without encoding them, is the order of their UTF-8 bytes. */
class ByteOrderPropertiesTest
{
    @Property(tries = 5000)
    void sameSignAsTheBytes(@ForAll("names") String a, @ForAll("names") String b)
    {
        int bytes = Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
        assertThat(Integer.signum(NodeSnapshot.BYTE_ORDER.compare(a, b))).as("%s vs %s", a, b).isEqualTo(Integer.signum(bytes));
    }

    /** Short names over a small alphabet that crosses every UTF-8 length and the surrogates, paired or not. */
    @Provide
    Arbitrary<String> names()
    {
        Arbitrary<String> pieces = Arbitraries.of("a", "Z", "-", ".", "\u007f", "\u0080", "\u00e9", "\u07ff", "\u0800", "\ud7ff",
                "\ue000", "\uffff", "\ud83d\ude00", "\ud800\udc00", "\udbff\udfff", "\ud800", "\udc00", "\ufffd");
        return pieces.list().ofMaxSize(6).map(list -> String.join("", list));
    }
}
