package io.tandem.protocols.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.sim.FaultKind;
import io.tandem.sim.Latency;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimTime;
import io.tandem.sim.Simulation;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * Where a healthy group's slots commit: on the fast path (one round trip, a fast quorum agreeing with
 * the pilot's dependency) or the slow path (a second round, the Accept phase). With ping-pong batching
 * the two pilots take turns, each proposal depending on the other pilot's latest, so that replicas
 * agree and almost every slot commits fast (§4.1). Measured on a disk much slower than the network,
 * as on a real machine where a flush takes milliseconds and a local message tens of microseconds.
 */
class CopilotPathShareTest {
    record Share(long fast, long slow) {
        double slowShare() {
            return fast + slow == 0 ? 0 : (double) slow / (fast + slow);
        }
    }

    static Share measure(CopilotConfig config, Latency disk, long seed) {
        SimOptions o = SimOptions.defaults().withFaults(EnumSet.noneOf(FaultKind.class)).withWorkload(5, 20, 3000).withSeed(seed);
        o = o.withNetwork(new Latency.Uniform(SimTime.micros(40), SimTime.micros(150)), 0, 0, 0, false).withDisk(disk, false, 0);
        Simulation sim = new Simulation(new CopilotProtocol(config), o);
        SimResult r = sim.run();
        assertThat(r.failure()).isEmpty();
        long fast = 0, slow = 0;
        for (NodeId n : sim.members()) {
            CopilotEngine e = sim.engine(n, CopilotEngine.class).orElseThrow();
            if (e.pilot == null) continue;
            fast += e.pilot.fastCommits();
            slow += e.pilot.slowCommits();
        }
        return new Share(fast, slow);
    }

    /**
     * On a fast disk and on one slower than the ping-pong wait, almost no slot of a healthy group takes
     * the slow path. Before the ball left with the proposal ({@link CopilotMessage.Ball}) the slow disk
     * sent 76 % of the slots (3264 of 4273, seed 1) down the slow path: the FastAccept, the only ball
     * then, left after the flush, so the other pilot's wait expired first and it proposed without it.
     */
    @Test
    void aHealthyGroupCommitsAlmostEverySlotOnTheFastPathAlsoWhenFlushesOutlastThePingPongWait() {
        Latency fastDisk = new Latency.Uniform(SimTime.micros(20), SimTime.micros(60));
        Latency slowDisk = new Latency.Uniform(SimTime.millis(1), SimTime.millis(3));
        for (Latency disk : new Latency[] {fastDisk, slowDisk}) {
            Share s = measure(CopilotConfig.DEFAULTS, disk, 1);
            System.out.printf("copilot path share, disk %s: fast %d slow %d, slow share %.1f%%%n", disk, s.fast(), s.slow(), 100 * s.slowShare());
            assertThat(s.fast() + s.slow()).isGreaterThan(1000);
            assertThat(s.slowShare()).isLessThan(0.05);
        }
    }
}
