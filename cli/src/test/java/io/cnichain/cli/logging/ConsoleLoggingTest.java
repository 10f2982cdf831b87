package io.cnichain.cli.logging;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class ConsoleLoggingTest
{
    @Test
    void timestampIsWhatInstantPrints()
    {
        long base = Instant.parse("2026-11-30T22:01:55Z").toEpochMilli();
        for (long millis : new long[] {0, 1, 9, 10, 99, 100, 120, 778, 999, 1000, 1001, 59_999, 60_000, 86_399_999}) {
            assertThat(ConsoleLogging.timestamp(base + millis)).isEqualTo(Instant.ofEpochMilli(base + millis).toString());
        }
        // Back in time (a clock step), and before the epoch.
        assertThat(ConsoleLogging.timestamp(base - 1)).isEqualTo(Instant.ofEpochMilli(base - 1).toString());
        assertThat(ConsoleLogging.timestamp(-1)).isEqualTo(Instant.ofEpochMilli(-1).toString());
    }

    @Test
    void everyDayFromYearZeroToTenThousandIsWrittenAsInstantWritesIt()
    {
        long first = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
        long last = Instant.parse("+10001-01-01T00:00:00Z").getEpochSecond();
        // Each day once (leap days, month and year ends, the 100- and 400-year rules), at a second that moves through the day.
        for (long second = first, step = 0; second < last; second += 86_400L, step++) {
            long at = second + (step * 7_919L) % 86_400L;
            assertThat(ConsoleLogging.secondText(at) + "Z").as("second %d", at).isEqualTo(Instant.ofEpochSecond(at).toString());
        }
        assertThat(ConsoleLogging.secondText(first - 1)).isEqualTo("-0001-12-31T23:59:59");
    }

    @Test
    void aNameWithANewlineCannotForgeALine()
    {
        assertThat(ConsoleLogging.oneLine("Created CNI config /etc/cni/net.d/a\n[2026-12-02T00:00:00Z] INFO  Removed everything.conflist"))
                .isEqualTo("Created CNI config /etc/cni/net.d/a\\n[2026-12-02T00:00:00Z] INFO  Removed everything.conflist");
        assertThat(ConsoleLogging.oneLine("cr\r bell\u0007 del\u007f tab\t stays")).isEqualTo("cr\\r bell\\x07 del\\x7f tab\t stays");
        assertThat(ConsoleLogging.oneLine("plain, café")).isEqualTo("plain, café");
    }
}
