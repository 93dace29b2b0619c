package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import io.tandem.sst.Sst;
import java.util.Collection;

/**
 * The SMC slots one send pass wrote into my ring, published together (derecho.md §3.2, §3.6): the
 * slots' bytes in as few pushes as the ring allows, then the guard {@code index} once, in a write of
 * its own (§2.5 R5). Sending a batch of k messages thus costs at most a few data pushes and one guard
 * push per peer instead of k of each, which is what keeps larger messages from paying a push pair
 * apiece (the 1 KiB gap of the loopback benchmark).
 *
 * <p>Why it is safe: a receiver reads slot k only after it acquired a guard above k, and the guard
 * goes out after every data push of the batch, on the same per-peer FIFO (R1/R2), so every slot
 * below the guard is complete when read. Consecutive slots of the ring are adjacent in the row, so a
 * run of them is one contiguous range; the unused tail of a slot between two used ones rides along
 * (nobody reads past a slot's length) as long as it is short ({@link #MAX_GAP_BYTES}), otherwise the
 * run is split. The ring wrapping around splits a run too. The send window (at most W messages not
 * yet delivered everywhere) keeps a batch within the W slots of the ring, so no slot is written
 * twice in one batch.
 */
final class RingBatch {
    /** Unused slot tail that may ride along inside one push; a longer one splits the run. */
    static final int MAX_GAP_BYTES = 1024;

    private final VsyncRow row;
    /** The subgroup's columns whose ring this batch publishes (one ring per subgroup of the layout). */
    private final VsyncRow.Block block;
    /** Padded bytes written to each ring slot in this batch (by slot number). */
    private final int[] lengths;
    private long first;
    private long end;

    RingBatch(VsyncRow row, VsyncRow.Block block) {
        this.row = row;
        this.block = block;
        this.lengths = new int[row.window];
    }

    /** Slot of message {@code k} now holds {@code paddedLength} bytes (a multiple of 8). */
    void add(long k, int paddedLength) {
        if (end == first) first = k;
        else if (k != end) throw new IllegalStateException("slot " + k + " does not follow " + (end - 1));
        if (k - first >= row.window) throw new IllegalStateException("batch of " + (k - first + 1) + " messages exceeds the ring of " + row.window + " slots");
        lengths[(int) (k % row.window)] = paddedLength;
        end = k + 1;
    }

    boolean isEmpty() {
        return end == first;
    }

    /** Pushes the batch's slots, then sets the guard to {@code guardValue} and pushes it; the batch is then empty. */
    void publish(Sst sst, long guardValue, Collection<NodeId> targets) {
        publish(sst, guardValue, targets, true);
    }

    /**
     * As {@link #publish(Sst, long, Collection)}; without {@code pushGuard} the guard is set but not pushed, and
     * true is returned if it moved: the caller pushes it later in a write of its own after these slots (the
     * engine's control push of the pass, {@link ControlPush#pushWithGuard}), to the same targets.
     */
    boolean publish(Sst sst, long guardValue, Collection<NodeId> targets, boolean pushGuard) {
        if (isEmpty()) return false;
        int runStart = row.slotOffset(first);
        int runEnd = runStart + lengths[(int) (first % row.window)];
        for (long k = first + 1; k < end; k++) {
            int off = row.slotOffset(k);
            int length = lengths[(int) (k % row.window)];
            if (off > runStart && off - runEnd <= MAX_GAP_BYTES) {
                runEnd = off + length; // adjacent slot: extend the run over the previous slot's short tail
            } else {
                sst.push(block.slots, runStart, runEnd - runStart, targets);
                runStart = off;
                runEnd = off + length;
            }
        }
        first = end;
        // The last run, then the guard in its own write (R5).
        if (pushGuard) {
            sst.publish(block.slots, runStart, runEnd - runStart, block.index, guardValue, targets);
        } else {
            sst.push(block.slots, runStart, runEnd - runStart, targets);
            sst.advance(block.index, guardValue);
        }
        return true;
    }
}
