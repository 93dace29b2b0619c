package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.sim.SimScenario;
import io.tandem.sim.SimTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A replica whose last progress report is older than its peers' is not behind (session 15, the
 * 300 ms client stalls of the quiet 64-client peer run). Replicas report once per heartbeat interval,
 * each on its own timer, so at 45k slots/s the leader's newest and oldest reports are up to ~4,500
 * slots apart while every replica is current; measured against the most advanced report, the
 * oldest-reporting replica looked more than {@code maxReplicaLagSlots} (4,096) behind, stopped
 * receiving Chosen, got a hole, and executed nothing (nor answered its clients) until its catch-up
 * timeout fired. When that replica is the leader's own, which answers every client (clients talk to
 * the leader; the origin's replica completes the request), every client stalls at once. Here, no
 * faults: bursts of writes until the leader's newest report from a follower is more than the lag
 * limit ahead of its own replica's (older) report, though that replica is current; the next write
 * must not wait for the catch-up timeout.
 */
class StaleProgressTest {
    private static final long MS = SimTime.MILLIS;

    @Test
    void aReplicaWhoseReportIsStaleKeepsReceivingChosen() {
        MultiPaxosConfig c = MultiPaxosConfig.builder()
                .heartbeatInterval(Duration.ofMillis(50))
                .resendInterval(Duration.ofMillis(50))
                .windowSlots(8).maxReplicaLagSlots(8)
                .catchUpTimeout(Duration.ofMillis(300))
                .build();
        SimScenario s = SimScenario.start(new MultiPaxosProtocol(c), SimScenario.options(3, MS));
        assertThat(s.runUntil(() -> MultiPaxosScenarioTest.leader(s).isPresent(), 10_000 * MS)).as("a leader\n" + s.describe()).isTrue();
        NodeId leader = MultiPaxosScenarioTest.leader(s).orElseThrow();
        // The simulated nodes' timers start in step; in a real cluster each replica's report timer has a
        // phase of its own. A leader clock 10 % fast (a clock rate, not a fault) moves its timers out of
        // step with the followers'.
        s.clockRate(leader, 100_000);
        s.runFor(200 * MS); // every replica reported at least once

        // Bursts of 40 writes until the leader holds a follower's report made after a burst and its
        // own replica's report from before it (their timers are out of phase): the situation of the
        // real run, where the reports differ by up to a heartbeat's worth of slots.
        Leader l = s.engine(leader, MultiPaxosEngine.class).leader();
        long limit = c.maxReplicaLagSlots();
        boolean stale = false;
        for (int round = 0; round < 50 && !stale; round++) {
            List<SimScenario.Call> burst = new ArrayList<>();
            for (int i = 0; i < 40; i++) burst.add(s.write(leader, i % 5, round * 40 + i + 1));
            assertThat(s.runUntil(() -> burst.stream().allMatch(SimScenario.Call::done), 2_000 * MS)).as("the burst\n" + s.describe()).isTrue();
            stale = s.runUntil(() -> Collections.max(l.replicaExecuted().values()) - l.replicaExecuted().get(leader) > limit, 60 * MS);
        }
        assertThat(stale).as("the leader's own report lagged the others'").isTrue();
        assertThat(s.engine(leader, MultiPaxosEngine.class).replica().executed())
                .as("and yet its replica executed every chosen slot").isEqualTo(Collections.max(l.replicaExecuted().values()));

        long start = s.nowNanos();
        SimScenario.Call w = s.write(leader, 7, 1000);
        assertThat(s.runUntil(w::done, 3_000 * MS) && w.ok()).as("the write: " + w + "\n" + s.describe()).isTrue();
        long tookMs = (s.nowNanos() - start) / MS;
        assertThat(s.failure()).isEmpty();
        assertThat(tookMs).as("the write (the leader's own replica answers it) waited for the catch-up timeout\n%s", s.describe())
                .isLessThan(c.catchUpTimeout().toMillis() / 3); // a few ms when pushed; ~290 ms (the timeout) before the fix
    }
}

