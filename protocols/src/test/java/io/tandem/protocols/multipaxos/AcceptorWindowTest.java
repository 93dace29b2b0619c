package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Accept;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Accepted;
import io.tandem.sim.SimScenario;
import io.tandem.sim.SimTime;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * DESIGN §3 rule 2 for the MultiPaxos leader: an acceptor that stops (as by SIGSTOP: nothing it is
 * sent is answered) under steady load gets at most one window of {@code Accept}s
 * ({@code maxInflightMessages}) for as long as it stays silent, whatever the load and however long it
 * is stopped, and it catches up and votes again once it answers. What the leader sends it is exactly
 * what would pile up in its transport queue, so it is counted on arrival at the stopped node.
 */
class AcceptorWindowTest {
    private static final long MS = SimTime.MILLIS;

    @Test
    void aStoppedAcceptorGetsOneWindowOfAcceptsAndVotesAgainOnceItAnswers() {
        MultiPaxosConfig config = MultiPaxosConfig.builder()
                .heartbeatInterval(Duration.ofMillis(50))
                .electionTimeout(Duration.ofMillis(1000), Duration.ofMillis(2000))
                .resendInterval(Duration.ofMillis(50))
                .maxInflight(8, 1 << 20)
                .maxBatch(4, 64 << 10)
                // n3 runs only an acceptor, so silencing it is what SIGSTOP does to it (no election of its own).
                .deployment(io.tandem.roles.Deployment.parse("""
                        leader   = n1, n2
                        acceptor = n1, n2, n3
                        replica  = n1, n2
                        frontend = n1, n2
                        """, "acceptor-apart.conf", MultiPaxosProtocol.ROLES))
                .build();
        SimScenario s = SimScenario.start(new MultiPaxosProtocol(config), SimScenario.options(3, MS));
        assertThat(s.runUntil(() -> MultiPaxosScenarioTest.leader(s).isPresent(), 10_000 * MS)).as("a leader\n" + s.describe()).isTrue();
        NodeId leader = MultiPaxosScenarioTest.leader(s).orElseThrow();
        NodeId stopped = NodeId.of("n3");
        for (int i = 0; i < 20; i++) s.write(leader, i, i);
        s.runFor(200 * MS);

        AtomicLong acceptsWhileStopped = new AtomicLong();
        s.drop("stopped", (from, to, m) -> {
            if (to.equals(stopped) && from.equals(leader) && m instanceof Accept) acceptsWhileStopped.incrementAndGet();
            return to.equals(stopped) || from.equals(stopped);
        });
        long writes = 0;
        long stopMs = 5_000;
        SimScenario.Call last = null;
        for (int ms = 0; ms < stopMs; ms++) {
            last = s.write(leader, 100 + ms % 50, ms);
            writes++;
            s.runFor(MS);
        }
        SimScenario.Call lastWhileStopped = last;
        assertThat(s.runUntil(lastWhileStopped::done, 2_000 * MS) && lastWhileStopped.ok()).as("the majority kept choosing: " + lastWhileStopped).isTrue();
        System.out.printf("a stopped acceptor got %d Accepts over %d ms of %d writes (window %d messages)%n",
                acceptsWhileStopped.get(), stopMs, writes, config.maxInflightMessages());
        // One window, sent before the leader noticed the silence; nothing more while it stays silent.
        assertThat(acceptsWhileStopped.get()).as("Accepts sent to the stopped acceptor").isLessThanOrEqualTo(config.maxInflightMessages());

        // It resumes: its heartbeat answers reopen its window and it votes in new slots again.
        AtomicLong votesAfter = new AtomicLong();
        s.allow("stopped");
        s.drop("count votes", (from, to, m) -> {
            if (from.equals(stopped) && m instanceof Accepted) votesAfter.incrementAndGet();
            return false;
        });
        for (int i = 0; i < 200; i++) {
            s.write(leader, i % 50, i);
            s.runFor(MS);
        }
        assertThat(s.runUntil(() -> votesAfter.get() > 0, 3_000 * MS)).as("the resumed acceptor votes again\n" + s.describe()).isTrue();
        assertThat(s.failure()).isEmpty();
    }
}
