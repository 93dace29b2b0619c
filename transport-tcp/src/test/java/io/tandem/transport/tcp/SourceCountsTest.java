package io.tandem.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class SourceCountsTest {
    @Test
    void countsPerAddressAndForgetsAddressesWithoutConnections() throws Exception {
        SourceCounts c = new SourceCounts();
        InetAddress a = InetAddress.getByName("127.0.0.2"), b = InetAddress.getByName("::1");
        assertThat(c.add(a)).isEqualTo(1);
        assertThat(c.add(a)).isEqualTo(2);
        assertThat(c.add(b)).isEqualTo(1);
        assertThat(c.sources()).isEqualTo(2);
        c.remove(a);
        c.remove(b);
        assertThat(c.sources()).isEqualTo(1);
        c.remove(a);
        c.remove(a); // one too many: harmless
        assertThat(c.sources()).isZero();
        for (int i = 0; i < 10_000; i++) {
            InetAddress many = InetAddress.getByAddress(new byte[] {10, 0, (byte) (i >> 8), (byte) i});
            c.add(many);
            c.remove(many);
        }
        assertThat(c.sources()).as("an attacker with many addresses leaves nothing behind").isZero();
    }
}
