package io.tandem.protocols.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.sim.FaultKind;
import io.tandem.sim.SimInvariant;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.Simulation;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link CopilotConfig#commitPiggyback} (copilot17): a pilot's Commit of its own slot goes at once to the other pilot
 * only and reaches the non-pilot replicas inside its next FastAccept, or on its own after the wait. The non-pilot
 * replicas still learn every decision (a quiet log included) and so run the same commands as the pilots; with the
 * option off, every member gets the Commit at once (the simulator's invariants and linearizability in both cases).
 */
class CopilotCommitPiggybackTest {

    /** Per member (by name), the last seen {@code deliveredIndex} and piggybacked-commit count, read after every step. */
    private static Probed probe(CopilotProtocol protocol, Map<String, long[]> last) {
        return new Probed(protocol, SimInvariant.of("piggyback-probe", c -> {
            for (NodeId n : c.members()) {
                c.engine(n, CopilotEngine.class).ifPresent(e -> last.put(n.toString(), new long[] {e.deliveredIndex(), e.piggybackedCommits, e.isPilot() ? 1 : 0}));
            }
            return Optional.empty();
        }));
    }

    private static SimOptions healthy(int clients, int ops) {
        SimOptions o = SimOptions.defaults().withFaults(EnumSet.noneOf(FaultKind.class));
        return o.withWorkload(5, clients, ops);
    }

    @Test
    void nonPilotReplicasLearnEveryDecisionFromTheFastAccepts() {
        Map<String, long[]> last = new TreeMap<>();
        SimResult r = Simulation.run(probe(new CopilotProtocol(), last), healthy(SimOptions.defaults().clients(), 400));
        assertThat(r.failure()).isEmpty();
        long pilotDelivered = last.values().stream().filter(v -> v[2] == 1).mapToLong(v -> v[0]).max().orElseThrow();
        assertThat(pilotDelivered).isPositive();
        last.forEach((node, v) -> {
            assertThat(v[0]).as("entries run at %s", node).isEqualTo(pilotDelivered);
            if (v[2] == 0) assertThat(v[1]).as("decisions %s learned inside FastAccepts", node).isPositive();
            else assertThat(v[1]).as("decisions pilot %s learned inside FastAccepts", node).isZero();
        });
    }

    // A quiet log (no FastAccept follows the last decision, so only the wait's plain Commits tell the replicas): the
    // simulator ends a run when its clients are done, so this is shown on the real runtime, with real timers:
    // CopilotRuntimeTest#bothPilotsAnswerACommandSentToBothAndItIsAppliedOnce waits (with a deadline) until n3, the
    // member that is no pilot, applied the last command too.

    @Test
    void withTheOptionOffEveryMemberGetsTheCommitAtOnce() {
        Map<String, long[]> last = new TreeMap<>();
        CopilotProtocol off = new CopilotProtocol(CopilotConfig.DEFAULTS.withCommitPiggyback(false, Duration.ofMillis(1)));
        SimResult r = Simulation.run(probe(off, last), healthy(SimOptions.defaults().clients(), 400));
        assertThat(r.failure()).isEmpty();
        last.forEach((node, v) -> assertThat(v[1]).as("decisions %s learned inside FastAccepts", node).isZero());
    }

    @Test
    void withTheOptionOffTheSeedMixPasses() {
        CopilotProtocol off = new CopilotProtocol(CopilotConfig.DEFAULTS.withCommitPiggyback(false, Duration.ofMillis(1)));
        SimRunner.Summary s = SimRunner.run(off, SimOptions.defaults(), SimOptions.seeds(1, 40), 3, null);
        System.out.println("copilot, commit piggyback off: " + s.line());
        StringBuilder b = new StringBuilder();
        for (SimResult f : s.failures()) b.append(SimRunner.describeFailure(f)).append('\n');
        assertThat(s.failures()).as(b.toString()).isEmpty();
    }
}
