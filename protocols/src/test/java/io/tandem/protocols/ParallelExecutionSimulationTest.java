package io.tandem.protocols;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.execution.ExecutionMode;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The simulator drives the runtime's parallel executors (P-SMR, optimistic P-SMR) on every node,
 * their workers' steps interleaved deterministically from the seed, under all faults, with the
 * linearizability check of every key's history and the state-machine-safety invariant. The
 * register machine's {@code add} stands in for a command with a dynamic dependency, so runs go
 * through checks, fails, re-sends of conservative copies and lock-step execution.
 * {@code -Dparallel.sim.seeds=N} runs more seeds; {@code -Dtandem.sim.seed=N} replays one.
 */
class ParallelExecutionSimulationTest {
    private static final int SEEDS = Integer.getInteger("parallel.sim.seeds", 60);

    private static String failures(SimRunner.Summary s) {
        StringBuilder b = new StringBuilder();
        for (SimResult r : s.failures()) b.append(SimRunner.describeFailure(r)).append('\n');
        return b.toString();
    }

    private static void runClean(String protocol, ExecutionMode mode, int threads, int seeds, boolean expectResubmits) {
        SimOptions o = SimOptions.defaults().withExecution(mode, threads).withPipelinedCommands(8);
        AtomicLong resubmits = new AtomicLong();
        SimRunner.Summary s = SimRunner.run(Protocols.byName(protocol), o, SimOptions.seeds(1, seeds), 3,
                r -> resubmits.addAndGet(r.stats().getOrDefault("execution-resubmits", 0L)));
        assertThat(s.failures()).as(failures(s)).isEmpty();
        assertThat(s.ops()).isGreaterThan((long) s.seeds() * o.ops() * 9 / 10);
        if (expectResubmits) assertThat(resubmits.get()).as("failed checks re-sent").isPositive();
    }

    @Test
    void raftWithOptimisticPsmrOnTwoWorkersStaysLinearizable() {
        runClean("raft", ExecutionMode.OPT_PSMR, 2, SEEDS, true);
    }

    @Test
    void raftWithPsmrOnThreeWorkersStaysLinearizable() {
        runClean("raft", ExecutionMode.PSMR, 3, SEEDS / 2, false);
    }

    @Test
    void multiPaxosWithOptimisticPsmrOnThreeWorkersStaysLinearizable() {
        runClean("multipaxos", ExecutionMode.OPT_PSMR, 3, SEEDS / 2, true);
    }

    @Test
    void aRunReplaysBitForBit() {
        SimOptions o = SimOptions.defaults().withExecution(ExecutionMode.OPT_PSMR, 2).withSeed(7);
        SimResult a = io.tandem.sim.Simulation.run(Protocols.byName("raft"), o);
        SimResult b = io.tandem.sim.Simulation.run(Protocols.byName("raft"), o);
        assertThat(a.stats()).isEqualTo(b.stats());
        assertThat(a.passed()).isTrue();
    }
}
