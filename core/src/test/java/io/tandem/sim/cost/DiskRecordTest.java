package io.tandem.sim.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The storage thread's time per record of a batch ({@code disk.record.ns}, issue 18, session 17): a lone sync of one record
 * is the measured {@code disk.fsync}; each record beyond the first adds the measured time on the node, before it asks the
 * (shared) device to sync, so it does not hold the device for the other nodes. Virtual time only.
 */
class DiskRecordTest {
    private final TestScheduler clock = new TestScheduler();

    private static CostTable table(String... extra) {
        Map<String, String> values = new HashMap<>(Map.of("disk.fsync", "1000", "net.oneway", "1000"));
        for (int i = 0; i < extra.length; i += 2) values.put(extra[i], extra[i + 1]);
        return CostTable.of(values);
    }

    @Test
    void withoutTheKeyABatchTakesWhatALoneSyncTakes() {
        CostModel model = new CostModel(table(), CostModel.Resources.shared(2).withSeparateDisks(), 1);
        model.attach(clock, List.of("n1"));
        assertThat(table().diskRecordNanos()).isZero();
        assertThat(model.disk("n1").flush(40, 0)).isEqualTo(1000);
    }

    @Test
    void aDiskOfItsOwnTakesTheRecordsBeyondTheFirstOnTop() {
        CostModel model = new CostModel(table("disk.record.ns", "50"), CostModel.Resources.shared(2).withSeparateDisks(), 1);
        model.attach(clock, List.of("n1"));
        assertThat(model.disk("n1").flush(1, 0)).isEqualTo(1000);
        assertThat(model.disk("n1").flush(40, 0)).isEqualTo(1000 + 39 * 50);
        assertThat(model.disk("n1").recordsTime(0)).isZero();
    }

    @Test
    void onASharedDeviceTheRecordsPassBeforeTheSyncIsAskedForAndDoNotHoldTheDevice() {
        CostModel model = new CostModel(table("disk.record.ns", "100"), CostModel.Resources.shared(2), 1);
        model.attach(clock, List.of("n1", "n2"));
        List<String> log = new ArrayList<>();
        // n1 writes 11 records (1,000 ns of its own), n2 one record: n2's sync starts on the idle device at once.
        model.disk("n1").flush(11, 0, () -> log.add("n1 @" + clock.now()));
        model.disk("n2").flush(1, 0, () -> log.add("n2 @" + clock.now()));
        clock.runAll();
        // n2's commit runs 0-1000; n1 asks at 1000, when the device is free again, and its commit runs 1000-2000.
        assertThat(log).containsExactly("n2 @1000", "n1 @2000");
        assertThat(model.device().commits()).isEqualTo(2);
    }

    @Test
    void aNegativeTimeIsRejected() {
        CostModel model = new CostModel(table(), CostModel.Resources.shared(2).withSeparateDisks(), 1);
        model.attach(clock, List.of("n1"));
        assertThatThrownBy(() -> model.disk("n1").setRecordNanos(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
