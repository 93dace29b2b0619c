package io.tandem.sim.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The storage thread's CPU inside the measured sync (issue 18, session 15): {@code disk.fsync} is measured append to
 * durable through the real storage thread, so the device's own part is the rest after that thread's CPU for the
 * calibration's one record, and a lone sync on idle cores takes {@code disk.fsync} as measured, with or without the
 * storage CPU in the table. Virtual time only.
 */
class DeviceSyncTest {
    private final TestScheduler clock = new TestScheduler();

    private static CostTable table(String... extra) {
        java.util.Map<String, String> values = new java.util.HashMap<>(Map.of("disk.fsync", "0:800,0.5:1000,1:1500", "net.oneway", "1000"));
        for (int i = 0; i < extra.length; i += 2) values.put(extra[i], extra[i + 1]);
        return CostTable.of(values);
    }

    @Test
    void withoutStorageCpuTheDeviceTakesTheMeasuredSync() {
        CostTable t = table();
        assertThat(t.deviceSync().format()).isEqualTo(t.disk().format());
    }

    @Test
    void theDeviceTakesTheMeasuredSyncLessTheStorageThreadsCpuForOneRecord() {
        CostTable t = table("disk.flush.cpu.ns", "300", "disk.entry.cpu.ns", "100");
        assertThat(t.deviceSync().format()).isEqualTo("0:400,0.5:600,1:1100");
        // Never below zero: a CPU per sync larger than a quantile leaves that quantile at 0.
        assertThat(table("disk.flush.cpu.ns", "900").deviceSync().format()).isEqualTo("0:0,0.5:100,1:600");
    }

    @Test
    void aLoneSyncOnIdleCoresTakesTheMeasuredTimeCpuThenDevice() {
        CostTable t = table("disk.fsync", "1000", "disk.flush.cpu.ns", "300", "disk.entry.cpu.ns", "100");
        CostModel model = new CostModel(t, CostModel.Resources.shared(2), 1);
        model.attach(clock, List.of("n1", "n2", "n3"));
        List<String> log = new ArrayList<>();
        // What SimNode.flush does for one record: the storage thread's CPU on the node's cores, then the shared device.
        model.cpu("n1").submit(Stage.DISK, t.diskFlushCpuCost() + t.diskEntryCpuCost(), null,
                () -> model.disk("n1").flush(128, () -> log.add("durable @" + clock.now())), true, true);
        clock.runAll();
        assertThat(log).containsExactly("durable @1000"); // 400 of CPU, then the device's 600
        assertThat(model.cpu("n1").busyNanos(Stage.DISK)).isEqualTo(400);
    }

    @Test
    void aSyncWhoseCpuWaitsForACoreTakesLonger() {
        CostTable t = table("disk.fsync", "1000", "disk.flush.cpu.ns", "300", "disk.entry.cpu.ns", "100");
        CostModel model = new CostModel(t, CostModel.Resources.shared(1), 1);
        model.attach(clock, List.of("n1"));
        List<String> log = new ArrayList<>();
        model.cpu("n1").submit(Stage.LOOP, 500, null, null); // the one core is busy for 500 ns first
        model.cpu("n1").submit(Stage.DISK, 400, null, () -> model.disk("n1").flush(128, () -> log.add("durable @" + clock.now())), true, true);
        clock.runAll();
        assertThat(log).containsExactly("durable @1500");
    }

    @Test
    void aSeparateDiskDrawsTheDevicesPartToo() {
        CostTable t = table("disk.fsync", "1000", "disk.flush.cpu.ns", "250");
        CostModel model = new CostModel(t, CostModel.Resources.shared(2).withSeparateDisks(), 1);
        model.attach(clock, List.of("n1"));
        assertThat(model.disk("n1").flush(0)).isEqualTo(750); // SimNode.flushLatency adds the 250 of CPU before it
    }
}
