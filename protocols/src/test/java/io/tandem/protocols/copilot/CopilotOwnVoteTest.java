package io.tandem.protocols.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.history.Op;
import io.tandem.history.Operation;
import io.tandem.sim.FaultKind;
import io.tandem.sim.FaultSchedule;
import io.tandem.sim.Latency;
import io.tandem.sim.SimInvariant;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.SimTime;
import io.tandem.sim.Simulation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The pilot's own vote is off a command's critical path (Raft's leader rule): its FastAccept leaves at
 * once, in parallel with the pilot's own write, and its own agreement counts only once that write is
 * durable. Before, the FastAccept waited for the pilot's flush, and every command paid two flushes in a
 * row (the pilot's, then the acceptors'). And the price of sending first: a pilot that crashes before
 * its vote is durable must neither reuse the slot nor contradict the vote recovery may count for it
 * ({@link Slot#voteLost}, {@link CopilotEngine#reserve}).
 */
class CopilotOwnVoteTest {
    private static final long FLUSH = SimTime.millis(4);

    /** Healthy, 5 replicas, 5 closed-loop clients, 40-150 us one way, every flush exactly {@link #FLUSH}. */
    private static SimOptions slowFlushes() {
        return SimOptions.defaults().withFaults(EnumSet.noneOf(FaultKind.class)).withWorkload(5, 5, 600)
                .withNetwork(new Latency.Uniform(SimTime.micros(40), SimTime.micros(150)), 0, 0, 0, false)
                .withDisk(new Latency.Fixed(FLUSH), false, 0);
    }

    private static long medianLatency(SimResult r) {
        List<Long> l = new ArrayList<>();
        for (Operation op : r.history().operations()) {
            if (op.isCompleted() && op.outcome() == Op.Type.OK && op.invocation().time() > SimTime.millis(500)) {
                l.add(op.completion().time() - op.invocation().time());
            }
        }
        assertThat(l).hasSizeGreaterThan(100);
        l.sort(null);
        return l.get(l.size() / 2);
    }

    /**
     * A command's median latency on a disk whose every flush takes 4 ms: below two flushes (with the
     * pilot's flush in front of the FastAccept it could not be: the pilot's flush, then the acceptors',
     * plus two one-way hops, before a slot could commit).
     */
    @Test
    void aCommandWaitsForTheAcceptorsFlushNotForThePilotsFirst() {
        SimResult r = Simulation.run(new CopilotProtocol(), slowFlushes());
        assertThat(r.failure()).isEmpty();
        long p50 = medianLatency(r);
        System.out.printf("copilot, healthy, 4 ms flushes: p50 %.2f ms%n", p50 / 1e6);
        assertThat(p50).isLessThan(2 * FLUSH);
    }

    /** Every engine instance that started with lost votes (a restart between a FastAccept and the pilot's flush). */
    private static Set<CopilotEngine> identitySet() {
        return Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
    }

    /**
     * Both pilots crash again and again while their FastAccepts are out and their own votes are still
     * unwritten (flushes of 3-8 ms, nothing unsynced survives a crash): every invariant holds after every
     * step (no ballot ever carries two values, committed slots agree, the cross-log order) and every
     * history is linearizable; and the schedules do hit the case, restarts that found reserved slots
     * without their vote.
     */
    @Test
    void pilotsThatCrashBeforeTheirOwnVoteIsDurableNeitherReuseNorContradictIt() {
        String schedule = "300ms=crash:n1;500ms=restart:n1;900ms=crash:n2;1100ms=restart:n2;1500ms=crash:n1;1600ms=restart:n1;"
                + "2000ms=crash:n2;2100ms=restart:n2;2500ms=crash:n1;2700ms=restart:n1";
        SimOptions o = SimOptions.defaults().withFaults(EnumSet.noneOf(FaultKind.class)).withWorkload(5, 10, 400)
                .withDisk(new Latency.Uniform(SimTime.millis(3), SimTime.millis(8)), true, 0).withSchedule(FaultSchedule.parse(schedule));
        Set<CopilotEngine> restartedWithLostVotes = identitySet();
        Probed probe = new Probed(new CopilotProtocol(), SimInvariant.of("lost-votes-probe", c -> {
            for (NodeId n : c.members()) c.engine(n, CopilotEngine.class).filter(e -> e.lostVotesAtStart > 0).ifPresent(restartedWithLostVotes::add);
            return Optional.empty();
        }));
        SimRunner.Summary s = SimRunner.run(probe, o, SimOptions.seeds(1, 20), 3, null);
        System.out.println("pilot crashes before their own flush: " + s.line() + ", restarts with lost votes: " + restartedWithLostVotes.size());
        StringBuilder b = new StringBuilder();
        for (SimResult r : s.failures()) b.append(SimRunner.describeFailure(r)).append('\n');
        assertThat(s.failures()).as(b.toString()).isEmpty();
        assertThat(restartedWithLostVotes).isNotEmpty();
    }
}
