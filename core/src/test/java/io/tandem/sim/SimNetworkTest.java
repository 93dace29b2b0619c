package io.tandem.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SimNetworkTest {
    private static final NodeId A = NodeId.of("n1");
    private static final NodeId B = NodeId.of("n2");

    private static SimNetwork network(double loss, double dup, double reorder, Latency latency) {
        SimOptions o = SimOptions.defaults().withNetwork(latency, loss, dup, reorder, false);
        return new SimNetwork(o, new SplittableRandom(42));
    }

    @Test
    void aOneWayPartitionBlocksOneDirectionOnly() {
        SimNetwork net = network(0, 0, 0, new Latency.Fixed(1000));
        net.partition(Set.of(new Fault.Link(A, B)));
        assertThat(net.plan(A, B, 0)).isEmpty();
        assertThat(net.plan(B, A, 0)).containsExactly(1000);
        net.heal();
        assertThat(net.plan(A, B, 0)).containsExactly(1000);
    }

    @Test
    void linksAreFifoUnlessReorderingIsAllowed() {
        SimNetwork fifo = network(0, 0, 0, new Latency.Uniform(0, 1_000_000));
        long previous = 0;
        for (int i = 0; i < 1000; i++) {
            long arrival = fifo.plan(A, B, i * 10L)[0];
            assertThat(arrival).isGreaterThanOrEqualTo(previous);
            previous = arrival;
        }
        SimNetwork reordering = network(0, 0, 1, new Latency.Uniform(0, 1_000_000));
        int overtakes = 0;
        previous = 0;
        for (int i = 0; i < 1000; i++) {
            long arrival = reordering.plan(A, B, i * 10L)[0];
            if (arrival < previous) overtakes++;
            previous = arrival;
        }
        assertThat(overtakes).isGreaterThan(100);
    }

    @Test
    void lossAndDuplicationFollowTheirRates() {
        SimNetwork lossy = network(0.3, 0, 0, new Latency.Fixed(1));
        int lost = 0;
        for (int i = 0; i < 10_000; i++) if (lossy.plan(A, B, i).length == 0) lost++;
        assertThat(lost).isBetween(2700, 3300);

        SimNetwork duplicating = network(0, 1, 0, new Latency.Fixed(1));
        assertThat(duplicating.plan(A, B, 0)).hasSize(2);

        lossy.lossBurst(0.9);
        lost = 0;
        for (int i = 0; i < 1000; i++) if (lossy.plan(A, B, i).length == 0) lost++;
        assertThat(lost).isGreaterThan(850);
        lossy.healAll();
        assertThat(lossy.lossRate()).isEqualTo(0.3);
    }

    @Test
    void aSlowNodeSlowsEveryLinkItIsOn() {
        SimNetwork net = network(0, 0, 0, new Latency.Fixed(1000));
        net.setSlow(B, 20);
        assertThat(net.plan(A, B, 0)).containsExactly(20_000);
        assertThat(net.plan(B, A, 0)).containsExactly(20_000);
        assertThat(net.clientDelay(B)).isEqualTo(20_000);
        net.clearSlow(B);
        assertThat(net.plan(B, A, 100_000)).containsExactly(101_000);

        net.setSlowLink(new Fault.Link(A, B), 7);
        assertThat(net.plan(A, B, 200_000)).containsExactly(207_000);
        assertThat(net.plan(B, A, 200_000)).containsExactly(201_000); // only the one direction
        net.healAll();
        assertThat(net.plan(A, B, 300_000)).containsExactly(301_000);
    }
}
