package io.tandem.protocols.vsync;

import static io.tandem.protocols.vsync.RecordingRows.A;
import static io.tandem.protocols.vsync.RecordingRows.B;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.protocols.vsync.RecordingRows.Push;
import io.tandem.sst.Sst;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link ControlPush}: the control range goes out whole unless only data-path counters changed, and
 * then only the changed words; either way the peer's copy ends up as after a whole-range push.
 */
class ControlPushTest {
    private final List<Push> pushes = new ArrayList<>();

    private static int wholeLength(VsyncRow row) {
        return row.lastCounter.offset() + row.lastCounter.length() - row.vid.offset();
    }

    @Test
    void theFirstPushAndAnyMembershipChangeSendTheWholeRange() {
        VsyncRow row = new VsyncRow(VsyncConfig.DEFAULTS);
        try (Arena arena = Arena.ofConfined()) {
            Sst a = RecordingRows.group(row, arena, pushes)[0];
            ControlPush push = new ControlPush(row);
            a.set(row.vid, 1);
            push.push(a, List.of(B));
            assertThat(pushes).containsExactly(new Push(row.vid.offset(), wholeLength(row)));

            pushes.clear();
            a.set(row.heartbeat, 7); // not a data counter
            a.advance(row.blocks.get(0).seq, 3);
            push.push(a, List.of(B));
            assertThat(pushes).containsExactly(new Push(row.vid.offset(), wholeLength(row)));

            pushes.clear();
            push.push(a, List.of(B)); // nothing changed: whole, as before
            assertThat(pushes).containsExactly(new Push(row.vid.offset(), wholeLength(row)));

            pushes.clear();
            push.reset();
            a.advance(row.blocks.get(0).delivered, 1); // a data counter, but after a reset
            push.push(a, List.of(B));
            assertThat(pushes).containsExactly(new Push(row.vid.offset(), wholeLength(row)));
        }
    }

    @Test
    void onlyDataCountersChangedSendsTheRunOfChangedWords() {
        VsyncRow row = new VsyncRow(VsyncConfig.DEFAULTS);
        VsyncRow.Block block = row.blocks.get(0);
        try (Arena arena = Arena.ofConfined()) {
            Sst a = RecordingRows.group(row, arena, pushes)[0];
            ControlPush push = new ControlPush(row);
            a.set(row.vid, 1);
            push.push(a, List.of(B));
            pushes.clear();

            a.advance(block.seq, 4);
            push.push(a, List.of(B));
            assertThat(pushes).containsExactly(new Push(block.seq.offset(), 8));

            pushes.clear();
            a.advance(block.received, 1, 5);
            a.advance(block.delivered, 2);
            push.push(a, List.of(B));
            int from = block.received.offsetOf(1);
            assertThat(pushes).containsExactly(new Push(from, block.delivered.offset() + 8 - from));
            assertThat(push.partialPushes()).isEqualTo(2);
        }
    }

    /** A deferred data-only change is not pushed, and the next push carries it with the newest values; a membership change is never deferred. */
    @Test
    void aDeferredDataChangeGoesWithTheNextPush() {
        VsyncRow row = new VsyncRow(VsyncConfig.DEFAULTS);
        VsyncRow.Block block = row.blocks.get(0);
        try (Arena arena = Arena.ofConfined()) {
            Sst a = RecordingRows.group(row, arena, pushes)[0];
            ControlPush push = new ControlPush(row);
            a.set(row.vid, 1);
            assertThat(push.push(a, List.of(B), true)).isTrue(); // nothing known yet: whole, never deferred
            pushes.clear();

            a.advance(block.received, 1, 5);
            assertThat(push.push(a, List.of(B), true)).isFalse();
            a.advance(block.seq, 4);
            assertThat(push.push(a, List.of(B), true)).isFalse();
            assertThat(pushes).isEmpty();
            assertThat(push.deferredPushes()).isEqualTo(2);

            a.advance(block.delivered, 2);
            assertThat(push.push(a, List.of(B), false)).isTrue();
            int from = block.received.offsetOf(1);
            assertThat(pushes).containsExactly(new Push(from, block.delivered.offset() + 8 - from));

            pushes.clear();
            a.set(row.heartbeat, 9); // a membership word: pushed even when deferring is allowed
            assertThat(push.push(a, List.of(B), true)).isTrue();
            assertThat(pushes).containsExactly(new Push(row.vid.offset(), wholeLength(row)));
        }
    }

    /**
     * A send pass's guard, set by {@link RingBatch} without a push, goes with the pass's changed counters in one
     * write after the slots; with a membership change (or a layout of two subgroups) the guard goes first on its
     * own, then the range as before. Either way the peer ends with the guard and the range as the writer's.
     */
    @Test
    void aPendingGuardRidesWithTheCountersAfterTheSlots() {
        VsyncRow row = new VsyncRow(VsyncConfig.DEFAULTS);
        VsyncRow.Block block = row.blocks.get(0);
        try (Arena arena = Arena.ofConfined()) {
            Sst[] g = RecordingRows.group(row, arena, pushes);
            Sst a = g[0];
            ControlPush push = new ControlPush(row);
            RingBatch batch = new RingBatch(row, block);
            a.set(row.vid, 1);
            push.push(a, List.of(B));
            pushes.clear();

            // A pass: two slots (the second message a null), my received and seq move, the guard is left to the push.
            a.writeWords(block.slots, row.slotOffset(0), new long[] {1, 2, 3, 4, 5, 6}, 6);
            batch.add(0, 48);
            a.writeWords(block.slots, row.slotOffset(1), new long[] {7, 8, 9, 10, 11, 12}, 6);
            batch.add(1, 48);
            a.set(block.received, 0, 2);
            a.advance(block.seq, 2);
            assertThat(batch.publish(a, 2, List.of(B), false)).isTrue();
            assertThat(pushes).containsExactly(new Push(block.slots.offset(), row.slotBytes + 48)); // the slots, no guard yet
            push.pushWithGuard(a, List.of(B), block);
            int from = block.received.offset();
            assertThat(pushes).containsExactly(new Push(block.slots.offset(), row.slotBytes + 48), new Push(from, block.index.offset() + 8 - from));
            assertThat(g[1].get(A, block.index)).isEqualTo(2);
            assertThat(g[1].get(A, block.seq)).isEqualTo(2);
            assertThat(g[1].get(A, block.received, 0)).isEqualTo(2);
            assertThat(g[1].get(A, row.trimReady)).isZero();
            assertThat(push.guardMerges()).isEqualTo(1);

            // A membership word changed in the same pass: the guard alone first, then the whole range.
            pushes.clear();
            a.set(row.heartbeat, 3);
            a.advance(block.index, 3);
            push.pushWithGuard(a, List.of(B), block);
            assertThat(pushes).containsExactly(new Push(block.index.offset(), 8), new Push(row.vid.offset(), wholeLength(row)));
            assertThat(push.guardMerges()).isEqualTo(1);
        }
        // Two subgroups: the first block's guard is not next to the range, so it always goes on its own.
        pushes.clear();
        VsyncRow two = new VsyncRow(VsyncConfig.DEFAULTS, 2);
        try (Arena arena = Arena.ofConfined()) {
            Sst a = RecordingRows.group(two, arena, pushes)[0];
            ControlPush push = new ControlPush(two);
            a.set(two.vid, 1);
            push.push(a, List.of(B));
            pushes.clear();
            a.advance(two.blocks.get(0).seq, 1);
            a.advance(two.blocks.get(0).index, 1);
            push.pushWithGuard(a, List.of(B), two.blocks.get(0));
            assertThat(pushes).containsExactly(new Push(two.blocks.get(0).index.offset(), 8), new Push(two.blocks.get(0).seq.offset(), 8));
        }
    }

    /** The heartbeat's whole-range push, recorded: the next pass pushes only the data counters it changed, not the whole range again. */
    @Test
    void aRecordedHeartbeatPushIsNotRepeated() {
        VsyncRow row = new VsyncRow(VsyncConfig.DEFAULTS);
        VsyncRow.Block block = row.blocks.get(0);
        try (Arena arena = Arena.ofConfined()) {
            Sst a = RecordingRows.group(row, arena, pushes)[0];
            ControlPush push = new ControlPush(row);
            a.set(row.vid, 1);
            push.push(a, List.of(B));
            a.set(row.heartbeat, 1);
            a.pushRangeWithCompletion(row.vid, row.lastCounter, List.of(B));
            push.recordWholePush(a);
            pushes.clear();
            a.advance(block.seq, 1);
            push.push(a, List.of(B));
            assertThat(pushes).containsExactly(new Push(block.seq.offset(), 8));
        }
    }

    /**
     * Random changes of the range's words, pushed through it after each round: the peer's copy of the
     * range always equals the writer's, as with whole-range pushes.
     */
    @Test
    void thePeersCopyAlwaysEqualsTheWritersRange() {
        VsyncRow row = new VsyncRow(VsyncConfig.DEFAULTS, 2);
        Random random = new Random(42);
        try (Arena arena = Arena.ofConfined()) {
            Sst[] g = RecordingRows.group(row, arena, pushes);
            Sst a = g[0];
            Sst b = g[1];
            ControlPush push = new ControlPush(row);
            List<VsyncRow.Block> blocks = row.blocks;
            long[] mine = new long[64];
            for (int round = 0; round < 2_000; round++) {
                int changes = random.nextInt(4);
                for (int c = 0; c < changes; c++) {
                    VsyncRow.Block bl = blocks.get(random.nextInt(blocks.size()));
                    switch (random.nextInt(10)) {
                        case 0 -> a.set(row.heartbeat, a.get(row.heartbeat) + 1);
                        case 1 -> a.set(row.numAcked, a.get(row.numAcked) + 1);
                        case 2 -> a.set(bl.trim, random.nextInt(8), random.nextInt(100));
                        case 3, 4 -> {
                            int r = random.nextInt(8);
                            a.advance(bl.received, r, a.get(bl.received, r) + 1 + random.nextInt(3));
                        }
                        case 5, 6 -> a.advance(bl.seq, a.get(bl.seq) + 1);
                        case 7, 8 -> a.advance(bl.delivered, a.get(bl.delivered) + 1);
                        default -> a.advance(bl.persisted, a.get(bl.persisted) + 1);
                    }
                }
                if (random.nextInt(50) == 0) push.reset();
                push.push(a, List.of(B));
                int words = a.readOwnWords(row.vid, row.lastCounter, mine);
                for (int i = 0; i < words; i++) {
                    assertThat(b.get(A, new io.tandem.sst.SstLayout.Column("w" + i, row.vid.offset() + 8 * i))).as("round %d word %d", round, i).isEqualTo(mine[i]);
                }
            }
            assertThat(push.partialPushes()).isPositive();
            assertThat(push.fullPushes()).isPositive();
        }
    }
}
