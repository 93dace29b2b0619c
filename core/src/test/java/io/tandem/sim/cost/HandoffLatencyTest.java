package io.tandem.sim.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The hand-off to a parked thread (issue 18, session 13): a job handed to an idle stage's thread while a core is idle waits
 * for the thread's wake-up, jobs handed meanwhile join that turn, and nothing else changes. Virtual time only: what is
 * asserted is the model's order and its own clock, never the wall clock.
 */
class HandoffLatencyTest {
    private final TestScheduler clock = new TestScheduler();
    private final List<String> log = new ArrayList<>();

    private void job(NodeCpu cpu, Stage stage, long cost, String name) {
        cpu.submit(stage, cost, () -> log.add("start " + name + " @" + clock.now()), () -> log.add("done " + name + " @" + clock.now()));
    }

    private NodeCpu cpu(int cores, long latency) {
        NodeCpu cpu = new NodeCpu("n1", new CpuHost("h", cores, clock), 1, 1, 1);
        cpu.setHandoffLatency(Stage.LOOP, Distribution.fixed(latency), new SplittableRandom(1));
        return cpu;
    }

    @Test
    void aJobHandedToAParkedThreadStartsAfterItsWakeUp() {
        NodeCpu cpu = cpu(2, 30);
        job(cpu, Stage.LOOP, 10, "a");
        assertThat(cpu.queued()).isEqualTo(1); // waiting for the thread, not lost
        clock.runAll();
        assertThat(log).containsExactly("start a @30", "done a @40");
        assertThat(cpu.handoffs()).isEqualTo(1);
        assertThat(cpu.handoffNanos()).isEqualTo(30);
        assertThat(cpu.queued()).isZero();
    }

    @Test
    void jobsHandedDuringTheWakeUpJoinItsTurnInOrder() {
        NodeCpu cpu = cpu(2, 30);
        job(cpu, Stage.LOOP, 10, "a");
        clock.at(5, () -> job(cpu, Stage.LOOP, 10, "b"));
        clock.at(29, () -> job(cpu, Stage.LOOP, 10, "c"));
        clock.runAll();
        assertThat(log).containsExactly("start a @30", "done a @40", "start b @40", "done b @50", "start c @50", "done c @60");
        assertThat(cpu.handoffs()).isEqualTo(1);
        assertThat(cpu.maxQueued()).isEqualTo(3);
    }

    @Test
    void aBusyThreadTakesTheNextJobWithoutAWakeUp() {
        NodeCpu cpu = cpu(2, 30);
        job(cpu, Stage.LOOP, 10, "a");
        clock.at(35, () -> job(cpu, Stage.LOOP, 10, "b")); // a runs 30..40: b queues behind it
        clock.at(100, () -> job(cpu, Stage.LOOP, 10, "c")); // idle again: a new hand-off
        clock.runAll();
        assertThat(log).containsExactly("start a @30", "done a @40", "start b @40", "done b @50", "start c @130", "done c @140");
        assertThat(cpu.handoffs()).isEqualTo(2);
    }

    @Test
    void aThreadWokenWhileEveryCoreIsBusyWaitsForACoreInstead() {
        NodeCpu cpu = cpu(1, 30);
        job(cpu, Stage.IO, 100, "io"); // holds the one core 0..100 (IO has no hand-off latency)
        job(cpu, Stage.LOOP, 10, "loop"); // its thread is parked, but no core is idle: it queues for the core
        clock.runAll();
        assertThat(log).containsExactly("start io @0", "done io @100", "start loop @100", "done loop @110");
        assertThat(cpu.handoffs()).isZero();
    }

    @Test
    void aJobWhoseWakeUpAMeasuredLatencyHoldsPaysNone() {
        NodeCpu cpu = cpu(2, 30);
        cpu.submit(Stage.LOOP, 10, () -> log.add("start storage @" + clock.now()), null, false);
        clock.runAll();
        assertThat(log).containsExactly("start storage @0");
        assertThat(cpu.handoffs()).isZero();
    }

    @Test
    void stagesWithoutALatencyAndNodesWithoutOneAreUnchanged() {
        NodeCpu cpu = cpu(2, 30);
        job(cpu, Stage.EXEC, 10, "exec");
        NodeCpu other = new NodeCpu("n2", new CpuHost("h2", 2, clock), 1, 1, 1);
        job(other, Stage.LOOP, 10, "other");
        clock.runAll();
        assertThat(log).containsExactly("start exec @0", "start other @0", "done exec @10", "done other @10");
    }

    @Test
    void theTurnsCpuIsChargedOnceAfterTheWakeUp() {
        NodeCpu cpu = cpu(1, 30);
        cpu.setWakeupCost(Stage.LOOP, 5);
        job(cpu, Stage.LOOP, 10, "a");
        clock.at(10, () -> job(cpu, Stage.LOOP, 10, "b")); // joins the turn: no wake-up cost of its own
        clock.runAll();
        // a 30..40, then its turn's 5 ns hold the thread (and the core) to 45; b 45..55.
        assertThat(log).containsExactly("start a @30", "done a @40", "start b @45", "done b @55");
        assertThat(cpu.wakeups()).isEqualTo(1);
        assertThat(cpu.busyNanos(Stage.LOOP)).isEqualTo(25);
    }

    @Test
    void aPausedNodesWokenThreadWaitsForTheResume() {
        NodeCpu cpu = cpu(2, 30);
        cpu.setPaused(true);
        job(cpu, Stage.LOOP, 10, "a");
        clock.at(50, () -> cpu.setPaused(false));
        clock.runAll();
        assertThat(log).containsExactly("start a @50", "done a @60");
    }

    @Test
    void theTableGivesTheLatencyToTheLoopAndExecutionThreadsOnly() {
        assertThat(CostTable.of(Map.of("disk.fsync", "100", "net.oneway", "10")).handoffLatency()).isNull();
        CostTable table = CostTable.of(Map.of("disk.fsync", "100", "net.oneway", "10", "handoff.latency", "0:20,0.5:30,1:40"));
        assertThat(table.handoffLatency().quantile(0.5)).isEqualTo(30);
        CostModel model = new CostModel(table, CostModel.Resources.shared(2), 1);
        model.attach(clock, List.of("n1"));
        for (Stage s : Stage.values()) model.cpu("n1").submit(s, 1, null, null); // IO takes a core; LOOP and EXEC wake with one idle; DISK takes it
        model.cpu(CostModel.CLIENT).submit(Stage.IO, 1, null, null);
        clock.runAll();
        assertThat(model.cpu("n1").handoffs()).isEqualTo(2); // LOOP and EXEC, not IO or DISK
        assertThat(model.cpu(CostModel.CLIENT).handoffs()).isZero();
        assertThat(CostModel.HANDOFF_STAGES).containsExactlyInAnyOrder(Stage.LOOP, Stage.EXEC);
    }
}
