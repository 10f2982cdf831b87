package io.cnichain.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PrintableTest
{
    @Test
    void aLineKeepsItsTextAndEscapesEveryLineBreak()
    {
        assertThat(Printable.line("net\nINFO  forged\r\u0085\u2028 tab\t café")).isEqualTo("net\\nINFO  forged\\r\\x85\\u2028 tab\t café");
        assertThat(Printable.line("plain")).isSameAs("plain");
    }

    @Test
    void aQuotedValueShowsWhereItEndsAndTwoValuesNeverPrintTheSame()
    {
        assertThat(Printable.quoted("k8s-pod-network")).isEqualTo("'k8s-pod-network'");
        assertThat(Printable.quoted("a'b\\n\tc\n")).isEqualTo("'a\\'b\\\\n\\tc\\n'");
        assertThat(Printable.quoted("a\\nb")).isNotEqualTo(Printable.quoted("a\nb"));
        assertThat(Printable.quoted("")).isEqualTo("''");
    }
}
