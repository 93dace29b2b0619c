package io.tandem.sim.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The storage thread's turn (issue 18, session 14): a job its thread takes without having parked (the sync returned with
 * the next batch queued) pays no wake-up; one handed to a parked thread does. Virtual time only.
 */
class StorageTurnTest {
    private final TestScheduler clock = new TestScheduler();
    private final List<String> log = new ArrayList<>();

    private NodeCpu cpu() {
        NodeCpu cpu = new NodeCpu("n1", new CpuHost("h", 2, clock), 1, 1, 1);
        cpu.setWakeupCost(Stage.DISK, 50);
        return cpu;
    }

    @Test
    void aJobForAParkedThreadPaysItsWakeUp() {
        NodeCpu cpu = cpu();
        cpu.submit(Stage.DISK, 10, null, () -> log.add("done @" + clock.now()), true, true);
        clock.runAll();
        assertThat(log).containsExactly("done @10");
        assertThat(cpu.busyNanos(Stage.DISK)).isEqualTo(60); // the job and the thread's turn after it
        assertThat(cpu.wakeups(Stage.DISK)).isEqualTo(1);
    }

    @Test
    void aJobTakenWithoutParkingPaysNone() {
        NodeCpu cpu = cpu();
        cpu.submit(Stage.DISK, 10, null, () -> log.add("done @" + clock.now()), true, false);
        clock.runAll();
        assertThat(log).containsExactly("done @10");
        assertThat(cpu.busyNanos(Stage.DISK)).isEqualTo(10);
        assertThat(cpu.wakeups(Stage.DISK)).isZero();
    }

    @Test
    void theFiveArgumentSubmitStillAssumesAParkedThread() {
        NodeCpu cpu = cpu();
        cpu.submit(Stage.DISK, 10, null, null, true);
        clock.runAll();
        assertThat(cpu.wakeups(Stage.DISK)).isEqualTo(1);
    }
}
