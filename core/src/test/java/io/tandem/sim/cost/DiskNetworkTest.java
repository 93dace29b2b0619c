package io.tandem.sim.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Disk, links, distributions, slowdown text and the cost table, in virtual time. */
class DiskNetworkTest {
    @Test
    void flushCostsFsyncPlusTransferAtTheBandwidth() {
        DiskModel disk = new DiskModel(Distribution.fixed(1_000_000), 1_000_000_000, new SplittableRandom(1));
        assertThat(disk.flush(1_000)).isEqualTo(1_000_000 + 1_000);
        disk.setBandwidth(512 * 1024);
        assertThat(disk.flush(512 * 1024)).isEqualTo(1_000_000 + 1_000_000_000L);
        disk.setBandwidth(0);
        disk.setExtraLatency(5);
        assertThat(disk.flush(0)).isEqualTo(1_000_005);
        assertThat(disk.flushes()).isEqualTo(3);
        assertThat(disk.maxBatchBytes()).isEqualTo(512 * 1024);
    }

    @Test
    void linksSerializeAtTheirBandwidthAndStayFifo() {
        NetworkModel net = new NetworkModel(Distribution.fixed(100), 1e9, new SplittableRandom(1));
        long a = net.arrival("n1", "n2", 0, 1_000); // on the wire 0..1000, arrives 1100
        long b = net.arrival("n1", "n2", 0, 10);    // behind it: 1000..1010, arrives 1110
        long c = net.arrival("n2", "n1", 0, 10);    // another link: not behind
        assertThat(a).isEqualTo(1_100);
        assertThat(b).isEqualTo(1_110);
        assertThat(c).isEqualTo(110);
    }

    @Test
    void egressDelayHoldsBackEverythingTheNodeSendsOnly() {
        NetworkModel net = new NetworkModel(Distribution.fixed(100), 0, new SplittableRandom(1));
        net.setEgressDelay("n3", 400_000_000L);
        assertThat(net.arrival("n3", "n1", 0, 10)).isEqualTo(400_000_100L);
        assertThat(net.arrival("n1", "n3", 0, 10)).isEqualTo(100);
        net.setEgressDelay("n3", 0);
        // FIFO: a message sent after the delay is lifted does not overtake the delayed one.
        assertThat(net.arrival("n3", "n1", 10, 10)).isEqualTo(400_000_100L);
    }

    @Test
    void distributionSamplesWithinItsQuantilesAndKeepsItsShape() {
        Distribution d = Distribution.parse("0:100,0.5:200,0.99:300,1:1000");
        SplittableRandom r = new SplittableRandom(7);
        long[] s = new long[100_000];
        for (int i = 0; i < s.length; i++) s[i] = d.sample(r);
        java.util.Arrays.sort(s);
        assertThat(s[0]).isGreaterThanOrEqualTo(100);
        assertThat(s[s.length - 1]).isLessThanOrEqualTo(1000);
        assertThat(s[s.length / 2]).isBetween(195L, 205L);
        assertThat(d.quantile(0.99)).isEqualTo(300);
        assertThat(Distribution.parse(d.format()).format()).isEqualTo(d.format());
        Distribution fromSamples = Distribution.ofSamples(new long[] {5, 1, 3, 2, 4});
        assertThat(fromSamples.quantile(0)).isEqualTo(1);
        assertThat(fromSamples.quantile(1)).isEqualTo(5);
        assertThatThrownBy(() -> Distribution.parse("0:5,1:3")).hasMessageContaining("increase");
    }

    @Test
    void slowdownTextRoundTripsAndBadTextIsNamed() {
        for (String t : new String[] {"follower:cpu=5%", "follower*2:cpu=5%,net=+400ms", "leader:disk=512KiB/s", "n2:pause=500ms/1s", "follower:stop",
                "follower:cpu=20%/100ms", "follower:disk+=5ms"}) {
            assertThat(Slowdown.parse(t).format()).isEqualTo(t);
        }
        Slowdown s = Slowdown.parse("follower*2:cpu=5%,net=+400ms");
        assertThat(s.count()).isEqualTo(2);
        assertThat(s.faults()).containsExactly(new Slowdown.Fault.Cpu(5, 1_000_000_000L), new Slowdown.Fault.Net(400_000_000L));
        assertThatThrownBy(() -> Slowdown.parse("follower")).hasMessageContaining("<target>:<fault>");
        assertThatThrownBy(() -> Slowdown.parse("follower:cpu=5")).hasMessageContaining("needs a %");
        assertThatThrownBy(() -> Slowdown.parse("follower:warp=9")).hasMessageContaining("unknown fault 'warp=9'");
        assertThatThrownBy(() -> Slowdown.parse("follower:pause=1s/1s")).hasMessageContaining("paused < period");
    }

    @Test
    void costTableLooksUpPerTypeThenDefaultsAndRejectsBadNumbers() {
        CostTable t = CostTable.of(Map.of("loop.message.Append.ns", "100", "loop.message.Append.perByte", "0.5", "loop.message.default.ns", "7",
                "loop.timer.ns", "3", "loop.default.ns", "1", "codec.encode.ns", "10", "codec.encode.perByte", "1", "disk.fsync", "0:1,1:2"));
        assertThat(t.loopCost("message", "Append", 100)).isEqualTo(150);
        assertThat(t.loopCost("message", "Other", 100)).isEqualTo(7);
        assertThat(t.loopCost("timer", null, 0)).isEqualTo(3);
        assertThat(t.loopCost("storage", null, 0)).isEqualTo(1);
        assertThat(t.encodeCost("Append", 5)).isEqualTo(15);
        assertThat(t.decodeCost("Append", 5)).isZero();
        assertThatThrownBy(() -> CostTable.of(Map.of("apply.ns", "fast"))).hasMessageContaining("apply.ns");
        assertThatThrownBy(() -> CostTable.of(Map.of("apply.ns", "-1"))).hasMessageContaining(">= 0");
    }
}
