package io.tandem.protocols.vsync;

import static io.tandem.protocols.vsync.RecordingRows.A;
import static io.tandem.protocols.vsync.RecordingRows.B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.protocols.vsync.RecordingRows.Push;
import io.tandem.sst.Sst;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RingBatch}: one send pass's slots go out in as few pushes as the ring allows, the guard last. */
class RingBatchTest {
    private final List<Push> pushes = new ArrayList<>();

    private static byte[] slot(int length, int fill) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) fill);
        return b;
    }

    @Test
    void adjacentSlotsGoAsOneDataPushThenTheGuard() {
        VsyncRow row = new VsyncRow(VsyncConfig.DEFAULTS.withWindow(4, 512));
        try (Arena arena = Arena.ofConfined()) {
            Sst[] s = RecordingRows.group(row, arena, pushes);
            RingBatch batch = new RingBatch(row, row.blocks.get(0));
            for (int k = 0; k < 3; k++) {
                s[0].write(row.blocks.get(0).slots, row.slotOffset(k), slot(112, k + 1));
                batch.add(k, 112);
            }
            batch.publish(s[0], 3, List.of(B));
            int base = row.blocks.get(0).slots.offset();
            assertThat(pushes).containsExactly(new Push(base, 2 * 512 + 112), new Push(row.blocks.get(0).index.offset(), 8));
            assertThat(s[1].get(A, row.blocks.get(0).index)).isEqualTo(3);
            for (int k = 0; k < 3; k++) assertThat(s[1].read(A, row.blocks.get(0).slots, row.slotOffset(k), 112)).isEqualTo(slot(112, k + 1));
            assertThat(batch.isEmpty()).isTrue();
        }
    }

    @Test
    void theRingWrappingAroundOrALongUnusedTailSplitsTheRun() {
        VsyncRow row = new VsyncRow(VsyncConfig.DEFAULTS.withWindow(4, 512));
        try (Arena arena = Arena.ofConfined()) {
            Sst[] s = RecordingRows.group(row, arena, pushes);
            RingBatch batch = new RingBatch(row, row.blocks.get(0));
            for (int k = 0; k < 3; k++) batch.add(k, 112);
            batch.publish(s[0], 3, List.of(B));
            pushes.clear();
            for (int k = 3; k < 6; k++) { // slots 3, 0, 1
                s[0].write(row.blocks.get(0).slots, row.slotOffset(k), slot(64, k));
                batch.add(k, 64);
            }
            batch.publish(s[0], 6, List.of(B));
            int base = row.blocks.get(0).slots.offset();
            assertThat(pushes).containsExactly(new Push(base + 3 * 512, 64), new Push(base, 512 + 64), new Push(row.blocks.get(0).index.offset(), 8));
            assertThat(s[1].read(A, row.blocks.get(0).slots, row.slotOffset(4), 64)).isEqualTo(slot(64, 4));
        }
        pushes.clear();
        VsyncRow big = new VsyncRow(VsyncConfig.DEFAULTS.withWindow(4, 8192));
        try (Arena arena = Arena.ofConfined()) {
            Sst[] s = RecordingRows.group(big, arena, pushes);
            RingBatch batch = new RingBatch(big, big.blocks.get(0));
            batch.add(0, 112);
            batch.add(1, 112);
            batch.publish(s[0], 2, List.of(B));
            int base = big.blocks.get(0).slots.offset();
            assertThat(pushes).containsExactly(new Push(base, 112), new Push(base + 8192, 112), new Push(big.blocks.get(0).index.offset(), 8));
        }
    }

    @Test
    void aBatchNeverSpansMoreThanTheRing() {
        VsyncRow row = new VsyncRow(VsyncConfig.DEFAULTS.withWindow(2, 512));
        RingBatch batch = new RingBatch(row, row.blocks.get(0));
        batch.add(0, 64);
        batch.add(1, 64);
        assertThatThrownBy(() -> batch.add(2, 64)).isInstanceOf(IllegalStateException.class).hasMessageContaining("exceeds the ring");
        RingBatch later = new RingBatch(row, row.blocks.get(0));
        later.add(5, 64); // a batch starts anywhere in the sender's sequence
        assertThat(later.isEmpty()).isFalse();
        assertThatThrownBy(() -> later.add(7, 64)).isInstanceOf(IllegalStateException.class).hasMessageContaining("does not follow");
    }
}
