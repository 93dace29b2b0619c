package io.tandem.protocols.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.Protocol;
import io.tandem.protocols.Protocols;
import io.tandem.roles.Deployment;
import io.tandem.sim.SimBench;
import io.tandem.sim.SimTime;
import org.junit.jupiter.api.Test;

/**
 * Laws of the performance model for Compartmentalized MultiPaxos (spec §2.1, §7.6.4), one machine per
 * role, with the fixed cost table of {@link SimBenchTest}: virtual time of a deterministic model,
 * never wall time. The measured table and the ablation are in {@code docs/compartments-scaling.md}.
 */
class CompartmentsScalingLawTest {
    static final String NO_PROXIES = """
            leader   = n1, n2
            acceptor = n3, n4, n5
            replica  = n6, n7
            frontend = n6, n7
            """;

    static String withProxies(int proxies) {
        StringBuilder s = new StringBuilder("leader = n1, n2\nproxy = ");
        for (int i = 0; i < proxies; i++) s.append(i == 0 ? "" : ", ").append('n').append(3 + i);
        int next = 3 + proxies;
        s.append("\nacceptor = n").append(next).append(", n").append(next + 1).append(", n").append(next + 2);
        s.append("\nreplica = n").append(next + 3).append(", n").append(next + 4);
        s.append("\nfrontend = n").append(next + 3).append(", n").append(next + 4).append('\n');
        return s.toString();
    }

    static SimBench.Result run(String deployment, int members) {
        Protocol p = Protocols.multiPaxos().withDeployment(Deployment.parse(deployment, "test.conf", io.tandem.protocols.multipaxos.MultiPaxosProtocol.ROLES));
        SimBench.Config c = SimBench.Config.of(members, 32).withTimeline(SimTime.seconds(1), SimTime.millis(200), SimTime.millis(500));
        return SimBench.run(p, c, SimBenchTest.TABLE);
    }

    static double leaderCpuMicrosPerOp(SimBench.Result r) {
        return r.leaderCpu() * 1e6 / r.throughput();
    }

    @Test
    void proxyLeadersTakeBroadcastingOffTheLeaderWhatEverTheirNumber() {
        SimBench.Result none = run(NO_PROXIES, 7);
        SimBench.Result two = run(withProxies(2), 9);
        SimBench.Result four = run(withProxies(4), 11);
        System.out.printf("no proxies: %.0f ops/s, leader %.2f cores, %.1f us/op; 2 proxies: %.0f ops/s, leader %.2f cores, %.1f us/op; 4 proxies: %.0f ops/s, leader %.2f cores, %.1f us/op%n",
                none.throughput(), none.leaderCpu(), leaderCpuMicrosPerOp(none), two.throughput(), two.leaderCpu(), leaderCpuMicrosPerOp(two),
                four.throughput(), four.leaderCpu(), leaderCpuMicrosPerOp(four));
        assertThat(none.ops()).isPositive();
        // The leader sends one message per run instead of one per acceptor plus one per replica: less CPU per command.
        assertThat(leaderCpuMicrosPerOp(two)).isLessThan(leaderCpuMicrosPerOp(none));
        // The leader's work per command does not depend on how many proxies share the broadcasting
        // (one run to one proxy, round-robin): more proxies add capacity off the leader's path only.
        assertThat(leaderCpuMicrosPerOp(four)).isCloseTo(leaderCpuMicrosPerOp(two), org.assertj.core.data.Percentage.withPercentage(10));
        assertThat(two.ops()).isPositive();
        assertThat(four.ops()).isPositive();
    }

    static final String GRID_BATCHERS = """
            leader   = n1, n2
            proxy    = n3, n4
            acceptor-row1 = n5, n6
            acceptor-row2 = n7, n8
            replica  = n9, n10
            batcher  = n9, n10
            """;

    @Test
    void batchersCutTheLeadersMessagesPerCommand() {
        SimBench.Result frontends = run(withProxies(2), 9);
        SimBench.Result batchers = run(GRID_BATCHERS, 10);
        System.out.printf("frontends: leader sends %.2f msgs/op, %.2f cores; batchers: %.2f msgs/op, %.2f cores%n",
                frontends.leaderSentPerOp(), frontends.leaderCpu(), batchers.leaderSentPerOp(), batchers.leaderCpu());
        assertThat(frontends.nodeStats()).hasSize(9);
        assertThat(batchers.nodeStats()).hasSize(10);
        // Spec §2.1: with proxies the leader sends one run per drain to a proxy (and Heartbeats), never a message per acceptor.
        assertThat(frontends.leaderSentPerOp()).isLessThan(2.0);
        // Spec §2.6: a batch of commands is one Propose and so at most one run: fewer leader messages per command.
        assertThat(batchers.leaderSentPerOp()).isLessThan(frontends.leaderSentPerOp());
        assertThat(batchers.busiest()).isNotNull();
    }

    /**
     * Spec §2.1: with proxy leaders the leader's work per command is receiving it and sending one
     * Phase 2a, 2 messages. Unbatched (one slot per Phase 2a, the paper's Fig. 12a), the proxies
     * report chosen runs to the leader several at a time, so the leader does not receive a third
     * message per command (one Decided per run did, before).
     */
    @Test
    void unbatchedTheLeaderHandlesAboutTwoMessagesPerCommandWithProxies() {
        Protocol p = Protocols.multiPaxos().withDeployment(Deployment.parse(withProxies(4), "test.conf", io.tandem.protocols.multipaxos.MultiPaxosProtocol.ROLES))
                .withEngineOptions(java.util.Map.of("max-batch-slots", "1"));
        SimBench.Config c = SimBench.Config.of(11, 256).withTimeline(SimTime.seconds(1), SimTime.millis(200), SimTime.millis(500));
        SimBench.Result r = SimBench.run(p, c, SimBenchTest.TABLE);
        System.out.printf("unbatched, 4 proxies: %.0f ops/s, leader %.2f cores, sends %.2f and receives %.2f msgs/op%n",
                r.throughput(), r.leaderCpu(), r.leaderSentPerOp(), r.leaderReceivedPerOp());
        assertThat(r.ops()).isPositive();
        assertThat(r.leaderSentPerOp()).isBetween(0.9, 1.2); // one ProxyAccept per command (plus heartbeats)
        assertThat(r.leaderReceivedPerOp() + r.leaderSentPerOp()).isLessThan(2.5); // the command in, its run out, reports shared
    }

    /**
     * Stripes (session 15): the leader deals each proxy consecutive slots, and a proxy announces the
     * adjacent runs chosen in one drain as one Chosen, so unbatched (one command per Phase 2) a
     * replica receives fewer messages than commands; dealt one run per proxy it received about one
     * Chosen per command.
     */
    @Test
    void unbatchedStripesLetAReplicaReceiveSeveralSlotsPerChosen() {
        double[] perOp = new double[2];
        int[] stripes = {1, 16};
        for (int i = 0; i < 2; i++) {
            Protocol p = Protocols.multiPaxos().withDeployment(Deployment.parse(withProxies(4), "test.conf", io.tandem.protocols.multipaxos.MultiPaxosProtocol.ROLES))
                    .withEngineOptions(java.util.Map.of("max-batch-slots", "1", "proxy-stripe-slots", Integer.toString(stripes[i])));
            SimBench.Config c = SimBench.Config.of(11, 256).withTimeline(SimTime.seconds(1), SimTime.millis(200), SimTime.millis(500));
            SimBench.Result r = SimBench.run(p, c, SimBenchTest.TABLE);
            SimBench.NodeStat replica = r.nodeStats().stream().filter(n -> n.node().equals("n10")).findFirst().orElseThrow();
            perOp[i] = replica.received() / (double) r.ops();
            System.out.printf("unbatched, 4 proxies, stripes of %d: %.0f ops/s, replica n10 receives %.2f msgs/op%n", stripes[i], r.throughput(), perOp[i]);
            assertThat(r.ops()).isPositive();
        }
        assertThat(perOp[0]).as("one run per proxy: about a Chosen per command").isGreaterThan(0.9);
        assertThat(perOp[1]).as("stripes of 16: adjacent runs share a Chosen").isLessThan(perOp[0] * 0.8);
    }

    @Test
    void leaderlessReadsCostTheLeaderNothing() {
        Protocol p = Protocols.multiPaxos().withDeployment(Deployment.parse(withProxies(2), "test.conf", io.tandem.protocols.multipaxos.MultiPaxosProtocol.ROLES));
        SimBench.Config c = SimBench.Config.of(9, 32).withTimeline(SimTime.seconds(1), SimTime.millis(200), SimTime.millis(500));
        SimBench.Result writes = SimBench.run(p, c, SimBenchTest.TABLE);
        SimBench.Result reads = SimBench.run(p, c.withReadShare(0.9), SimBenchTest.TABLE);
        System.out.printf("write-only: %.0f ops/s, leader %.1f us/op; 90%% reads: %.0f ops/s, leader %.1f us/op%n",
                writes.throughput(), leaderCpuMicrosPerOp(writes), reads.throughput(), leaderCpuMicrosPerOp(reads));
        assertThat(reads.ops()).isPositive();
        // Spec §2.4: a read goes to a read quorum of acceptors and a replica, never to the leader, so the
        // leader's CPU per operation falls with the write share (0.1 of it here; 0.5 leaves room for timers).
        assertThat(leaderCpuMicrosPerOp(reads)).isLessThan(0.5 * leaderCpuMicrosPerOp(writes));
    }
}
