package io.cnichain.cli.logging;

import org.junit.jupiter.api.Test;

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
}
