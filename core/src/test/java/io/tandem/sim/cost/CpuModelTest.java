package io.tandem.sim.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The CPU queues in virtual time: FIFO per stage, cores shared, quota, pauses. Times asserted are the model's, not the wall clock's. */
class CpuModelTest {
    private final TestScheduler clock = new TestScheduler();
    private final List<String> log = new ArrayList<>();

    private void job(NodeCpu cpu, Stage stage, long cost, String name) {
        cpu.submit(stage, cost, () -> log.add("start " + name + " @" + clock.now()), () -> log.add("done " + name + " @" + clock.now()));
    }

    @Test
    void oneThreadServesItsQueueInOrder() {
        CpuHost host = new CpuHost("h", 4, clock);
        NodeCpu cpu = new NodeCpu("n1", host, 1, 1, 1);
        job(cpu, Stage.LOOP, 10, "a");
        job(cpu, Stage.LOOP, 5, "b");
        job(cpu, Stage.LOOP, 1, "c");
        assertThat(cpu.queued()).isEqualTo(2);
        clock.runAll();
        assertThat(log).containsExactly("start a @0", "done a @10", "start b @10", "done b @15", "start c @15", "done c @16");
        assertThat(cpu.busyNanos(Stage.LOOP)).isEqualTo(16);
        assertThat(cpu.maxQueued()).isEqualTo(2);
    }

    @Test
    void stagesRunInParallelWhenThereAreCores() {
        CpuHost host = new CpuHost("h", 2, clock);
        NodeCpu cpu = new NodeCpu("n1", host, 1, 1, 1);
        job(cpu, Stage.IO, 10, "io");
        job(cpu, Stage.LOOP, 10, "loop");
        job(cpu, Stage.EXEC, 10, "exec");
        clock.runAll();
        // Two cores: io and loop together, exec when the first core frees.
        assertThat(log).containsExactly("start io @0", "start loop @0", "done io @10", "start exec @10", "done loop @10", "done exec @20");
    }

    @Test
    void nodesOnOneHostShareItsCoresFirstComeFirstServed() {
        CpuHost host = new CpuHost("h", 1, clock);
        NodeCpu a = new NodeCpu("a", host, 1, 1, 1);
        NodeCpu b = new NodeCpu("b", host, 1, 1, 1);
        job(a, Stage.LOOP, 10, "a1");
        job(b, Stage.LOOP, 10, "b1");
        job(a, Stage.LOOP, 10, "a2");
        clock.runAll();
        assertThat(log).containsExactly("start a1 @0", "done a1 @10", "start b1 @10", "done b1 @20", "start a2 @20", "done a2 @30");
        assertThat(host.busyNanos()).isEqualTo(30);
    }

    @Test
    void aJobStartedByAnotherJobQueuesBehindWorkAlreadyQueued() {
        CpuHost host = new CpuHost("h", 1, clock);
        NodeCpu cpu = new NodeCpu("n1", host, 1, 1, 1);
        cpu.submit(Stage.LOOP, 10, () -> job(cpu, Stage.IO, 1, "send"), () -> log.add("done first @" + clock.now()));
        job(cpu, Stage.IO, 2, "receive");
        clock.runAll();
        assertThat(log).containsExactly("done first @10", "start send @10", "done send @11", "start receive @11", "done receive @13");
    }

    @Test
    void quotaLetsTheNodeRunItsShareOfEachPeriod() {
        CpuHost host = new CpuHost("h", 1, clock);
        NodeCpu cpu = new NodeCpu("n1", host, 1, 1, 1);
        cpu.setQuota(50, 1000); // 5 % of a core per period of 1000
        for (int i = 0; i < 12; i++) job(cpu, Stage.LOOP, 10, "j" + i);
        clock.runAll();
        // 5 jobs of 10 per period: j0..j4 in [0, 50), j5..j9 from 1000, j10.. from 2000.
        assertThat(log).contains("start j4 @40", "start j5 @1000", "start j9 @1040", "start j10 @2000", "done j11 @2020");
    }

    @Test
    void aJobOverrunningItsQuotaIsPaidInTheNextPeriod() {
        CpuHost host = new CpuHost("h", 1, clock);
        NodeCpu cpu = new NodeCpu("n1", host, 1, 1, 1);
        cpu.setQuota(50, 1000);
        job(cpu, Stage.LOOP, 120, "long");
        job(cpu, Stage.LOOP, 10, "next");
        clock.runAll();
        // 120 used against 50 per period: the deficit of 70 is still 20 after the next period's 50, so "next" waits until 2000.
        assertThat(log).containsExactly("start long @0", "done long @120", "start next @2000", "done next @2010");
    }

    @Test
    void aPausedNodeStartsNothingUntilResumed() {
        CpuHost host = new CpuHost("h", 2, clock);
        NodeCpu cpu = new NodeCpu("n1", host, 1, 1, 1);
        cpu.setPaused(true);
        job(cpu, Stage.LOOP, 10, "a");
        clock.runUntil(500);
        assertThat(log).isEmpty();
        assertThat(cpu.queued()).isEqualTo(1);
        cpu.setPaused(false);
        clock.runAll();
        assertThat(log).containsExactly("start a @500", "done a @510");
    }

    @Test
    void pauseCycleStopsTheNodeHalfOfEachPeriod() {
        CostModel model = new CostModel(CostTable.uncalibrated(), CostModel.Resources.dedicated(1), 1);
        model.attach(clock, List.of("n1"));
        Runnable undo = Slowdown.parse("n1:pause=500ms/1s").apply(model, "n1");
        NodeCpu cpu = model.cpu("n1");
        clock.runUntil(100_000_000L);
        assertThat(cpu.isPaused()).isTrue();
        clock.runUntil(600_000_000L);
        assertThat(cpu.isPaused()).isFalse();
        clock.runUntil(1_100_000_000L);
        assertThat(cpu.isPaused()).isTrue();
        undo.run();
        assertThat(cpu.isPaused()).isFalse();
        clock.runUntil(2_100_000_000L);
        assertThat(cpu.isPaused()).as("the cycle ends when undone").isFalse();
    }

    @Test
    void onlyAJobThatFindsItsThreadIdlePaysTheWakeupAfterItsWork() {
        CpuHost host = new CpuHost("h", 1, clock);
        NodeCpu cpu = new NodeCpu("n1", host, 1, 1, 1);
        cpu.setWakeupCost(3);
        job(cpu, Stage.LOOP, 10, "a"); // idle thread: its effects leave after 10, the thread's turn ends at 13
        job(cpu, Stage.LOOP, 10, "b"); // queued behind a: handled in the same turn, no wake-up
        clock.runUntil(100);
        job(cpu, Stage.LOOP, 10, "c"); // idle again
        clock.runUntil(200);
        assertThat(log).containsExactly("start a @0", "done a @10", "start b @13", "done b @23", "start c @100", "done c @110");
        assertThat(cpu.wakeups()).isEqualTo(2);
        assertThat(cpu.wakeups(Stage.LOOP)).isEqualTo(2);
        assertThat(cpu.busyNanos(Stage.LOOP)).as("work and turn costs").isEqualTo(36);
        assertThat(cpu.turnNanos(Stage.LOOP)).as("the turns' part of it").isEqualTo(6);
        assertThat(cpu.turnNanos(Stage.IO)).isZero();
    }

    @Test
    void moreWorkInFlightMeansFewerWakeupsPerJob() {
        // The batching of the real loops: jobs that arrive while the thread is busy join its turn.
        CpuHost host = new CpuHost("h", 1, clock);
        NodeCpu cpu = new NodeCpu("n1", host, 1, 1, 1);
        cpu.setWakeupCost(Stage.IO, 50);
        for (int i = 0; i < 10; i++) clock.at(i * 1_000L, () -> job(cpu, Stage.IO, 10, "spaced")); // each finds the thread idle
        clock.runUntil(100_000);
        assertThat(cpu.wakeups(Stage.IO)).isEqualTo(10);
        for (int i = 0; i < 10; i++) job(cpu, Stage.IO, 10, "burst"); // all queued at once: one turn
        clock.runUntil(200_000);
        assertThat(cpu.wakeups(Stage.IO)).isEqualTo(11);
        assertThat(cpu.busyNanos(Stage.IO)).isEqualTo(20 * 10 + 11 * 50);
        // The turns' share of the busy time falls as the work comes together: 10 turns for 10 spaced jobs, 1 for the burst.
        assertThat(cpu.turnNanos(Stage.IO)).isEqualTo(11 * 50);
    }

    @Test
    void eachStageHasItsOwnWakeupCostAndTheTurnHoldsTheCore() {
        CpuHost host = new CpuHost("h", 1, clock);
        NodeCpu cpu = new NodeCpu("n1", host, 1, 1, 1);
        NodeCpu other = new NodeCpu("n2", host, 1, 1, 1);
        cpu.setWakeupCost(Stage.IO, 7);
        cpu.setWakeupCost(Stage.EXEC, 0);
        job(cpu, Stage.IO, 10, "io");
        job(other, Stage.LOOP, 1, "other"); // the only core is held by io's turn until 17
        clock.runUntil(100);
        job(cpu, Stage.EXEC, 10, "exec"); // no wake-up cost on this stage
        clock.runUntil(200);
        assertThat(log).containsExactly("start io @0", "done io @10", "start other @17", "done other @18", "start exec @100", "done exec @110");
        assertThat(cpu.wakeups(Stage.EXEC)).isZero();
        assertThatThrownBy(() -> cpu.setWakeupCost(Stage.IO, -1)).hasMessageContaining("negative");
    }

    @Test
    void tableGivesEachStageItsWakeupOrTheCommonOne() {
        CostTable t = CostTable.of(java.util.Map.of("disk.fsync", "1000", "net.oneway", "1000", "wakeup.ns", "5", "wakeup.IO.ns", "9", "disk.entry.cpu.ns", "4"));
        assertThat(t.wakeupCost(Stage.IO)).isEqualTo(9);
        assertThat(t.wakeupCost(Stage.LOOP)).isEqualTo(5);
        assertThat(t.clientWakeupCost()).isEqualTo(5);
        assertThat(t.with("wakeup.client.ns", "2").clientWakeupCost()).isEqualTo(2);
        assertThat(t.diskEntryCpuCost()).isEqualTo(4);
    }

    @Test
    void theTurnCountsAgainstTheQuota() {
        CpuHost host = new CpuHost("h", 1, clock);
        NodeCpu cpu = new NodeCpu("n1", host, 1, 1, 1);
        cpu.setWakeupCost(Stage.LOOP, 40);
        cpu.setQuota(50, 1_000);
        job(cpu, Stage.LOOP, 10, "a"); // 10 + 40 of turn: the period's 50 used up
        clock.runUntil(60);
        job(cpu, Stage.LOOP, 10, "b"); // waits for the next period
        clock.runAll();
        assertThat(log).containsExactly("start a @0", "done a @10", "start b @1000", "done b @1010");
    }

    @Test
    void invalidSettingsAreRejected() {
        CpuHost host = new CpuHost("h", 1, clock);
        assertThatThrownBy(() -> new CpuHost("x", 0, clock)).hasMessageContaining("at least one core");
        assertThatThrownBy(() -> new NodeCpu("n", host, 0, 1, 1)).hasMessageContaining("at least one thread");
        NodeCpu cpu = new NodeCpu("n", host, 1, 1, 1);
        assertThatThrownBy(() -> cpu.setQuota(10, 0)).hasMessageContaining("period");
        assertThatThrownBy(() -> cpu.submit(Stage.IO, -1, null, null)).hasMessageContaining("negative");
    }
}
