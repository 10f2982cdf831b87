package io.cnichain.cli.logging;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class ConsoleLoggingTest
{
    @Test
    void aNameWithANewlineCannotForgeALine()
    {
        assertThat(ConsoleLogging.oneLine("Created CNI config /etc/cni/net.d/a\n[2026-12-02T00:00:00Z] INFO  Removed everything.conflist"))
                .isEqualTo("Created CNI config /etc/cni/net.d/a\\n[2026-12-02T00:00:00Z] INFO  Removed everything.conflist");
        assertThat(ConsoleLogging.oneLine("cr\r bell\u0007 del\u007f tab\t stays")).isEqualTo("cr\\r bell\\x07 del\\x7f tab\t stays");
        assertThat(ConsoleLogging.oneLine("plain, café")).isEqualTo("plain, café");
    }

    @Test
    void everyDayFromYearZeroToTenThousandIsStampedAsInstantWritesIt()
    {
        long first = Instant.parse("0000-01-01T00:00:00Z").toEpochMilli();
        long last = Instant.parse("+10001-01-01T00:00:00Z").toEpochMilli();
        // Each day once (leap days, month and year ends, the 100- and 400-year rules), at a time that moves through the
        // day, with and without milliseconds (Instant leaves the fraction out on a whole second).
        for (long day = first, step = 0; day < last; day += 86_400_000L, step++) {
            long at = day + (step * 7_919_003L) % 86_400_000L;
            long whole = at - Math.floorMod(at, 1000L);
            assertThat(ConsoleLogging.timestamp(at)).as("millis %d", at).isEqualTo(Instant.ofEpochMilli(at).toString());
            assertThat(ConsoleLogging.timestamp(whole)).as("millis %d", whole).isEqualTo(Instant.ofEpochMilli(whole).toString());
        }
        assertThat(ConsoleLogging.timestamp(first - 1)).isEqualTo("-0001-12-31T23:59:59.999Z");
        assertThat(ConsoleLogging.timestamp(last)).isEqualTo("+10001-01-01T00:00:00Z");
        assertThat(ConsoleLogging.timestamp(1_796_383_224_564L)).isEqualTo("2026-12-04T11:20:24.564Z");
    }
}
