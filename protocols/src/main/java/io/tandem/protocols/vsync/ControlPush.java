package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import io.tandem.sst.Sst;
import java.util.List;

/**
 * The push of my row's control range ({@link VsyncRow#vid} through {@link VsyncRow#lastCounter})
 * after a pass that changed it, cut down to the changed words when only data-path counters changed
 * (derecho.md §2.4: "push only the changed bytes"). On the data path a pass changes a shard's
 * {@code received}, {@code seq} and {@code delivered} words, ~40 of the range's ~370 bytes; the
 * whole range went to every peer once per such pass.
 *
 * <p>Why a partial push is safe: it remembers the words the last push through it sent to the same
 * targets (the view's other members; {@link #reset} on every view). A partial push goes out only
 * if every word that differs from those lies in a block's data counters ({@code received} through
 * {@code persisted}); it carries the smallest run of words that holds every difference, with the
 * same values a whole-range push would carry. Every word it leaves out holds the value of an earlier
 * push to the same peer, which that peer applied first (R1/R2), so after it the peer's copy is the
 * one a whole-range push would have left. Any other change (view id, heartbeat, suspicions, the
 * change protocol, the trim, the wedge flag) sends the whole range, as before, so the membership
 * protocol's writes are unchanged. The data counters are monotonic and read as minimums (stability,
 * the window, the trim), so nothing about them depends on which write carried them.
 *
 * <p>One case differs from a whole-range push: a write the transport dropped (a peer unreachable for
 * a moment) is repaired by the next push that carries those words, which for an unchanged
 * membership word is now the next whole-range push (the heartbeat's, at the latest) instead of the
 * next data-path push. The dropped words are stale, never wrong, and stale counters only hold
 * stability and the window back.
 *
 * <p><b>Deferred data-only pushes</b> (session 17): {@link #push(Sst, List, boolean)} with {@code mayDefer}
 * leaves a change that touches only data counters unpushed, and returns false; the next push through
 * here compares against the words last pushed, so it carries every change deferred since, with the
 * newest values. The engine defers only on a busy pass of its data path (another pass follows at once)
 * and at most {@link VsyncEngine#MAX_DEFERRED_PUSHES} passes in a row; see {@code VsyncEngine#flush}
 * for why that is safe.
 */
final class ControlPush {
    private final VsyncRow row;
    /** Per word of the range: whether it is a data-path counter of some block. */
    private final boolean[] dataWord;
    /** The words as the last push through here sent them (valid when {@link #known}). */
    private final long[] pushed;
    private final long[] now;
    /** Words of the control range. */
    private final int words;
    /**
     * Word (from {@link VsyncRow#vid}) of the one block's guard if it follows the control range with only
     * {@link VsyncRow#trimReady} between (the layout of a row with one subgroup), else -1: then a pending guard
     * is pushed on its own.
     */
    private final int guardWord;
    private long guardMerges;
    private boolean known;
    private long partialPushes;
    private long fullPushes;
    private long deferredPushes;

    ControlPush(VsyncRow row) {
        this.row = row;
        int from = row.vid.offset();
        int words = (row.lastCounter.offset() + row.lastCounter.length() - from) / 8;
        dataWord = new boolean[words];
        for (VsyncRow.Block b : row.blocks) {
            int first = (b.received.offset() - from) / 8;
            int last = (b.persisted.offset() + b.persisted.length() - from) / 8;
            for (int i = first; i < last; i++) dataWord[i] = true;
        }
        this.words = words;
        int end = row.lastCounter.offset() + row.lastCounter.length();
        boolean adjacent = row.blocks.size() == 1 && row.trimReady.offset() == end && row.blocks.getFirst().index.offset() == end + 8;
        guardWord = adjacent ? words + 1 : -1;
        pushed = new long[words];
        now = new long[words + 2];
    }

    /** Forgets what was pushed: the next push sends the whole range (a new view, new targets). */
    void reset() {
        known = false;
    }

    /** Pushes the control range to {@code targets}, or only its changed data-path words (see the class comment). */
    void push(Sst sst, List<NodeId> targets) {
        push(sst, targets, false);
    }

    /**
     * As {@link #push(Sst, List)}; with {@code mayDefer}, a change of data counters only is not pushed
     * (false is returned) and is carried by the next push through here.
     */
    boolean push(Sst sst, List<NodeId> targets, boolean mayDefer) {
        int words = sst.readOwnWords(row.vid, row.lastCounter, now);
        int first = -1;
        int last = -1;
        boolean dataOnly = known;
        for (int i = 0; i < words && dataOnly; i++) {
            if (now[i] == pushed[i]) continue;
            if (!dataWord[i]) dataOnly = false;
            if (first < 0) first = i;
            last = i;
        }
        if (dataOnly && first >= 0 && mayDefer) {
            deferredPushes++;
            return false;
        }
        if (dataOnly && first >= 0) {
            sst.pushWords(row.vid, first, last + 1, targets);
            System.arraycopy(now, first, pushed, first, last + 1 - first);
            partialPushes++;
            return true;
        }
        // A membership word changed, nothing is known yet, or nothing changed at all: the whole range, as always.
        sst.pushRange(row.vid, row.lastCounter, targets);
        System.arraycopy(now, 0, pushed, 0, words);
        known = true;
        fullPushes++;
        return true;
    }

    /**
     * The push of a pass whose send moved the one shard's guard without pushing it ({@link RingBatch#publish(Sst,
     * long, java.util.Collection, boolean)}; the slots it covers are already pushed): the changed data counters
     * and the guard in one write per peer, where the pass used to write the guard and then the counters.
     *
     * <p>Why safe: the guard still goes in a write of its own after every slot it covers, on the same per-peer
     * FIFO (R1/R2), so a reader that acquires it reads complete slots (R5); the write carries no slot. Its other
     * words are the data counters (monotonic, read as minimums, vouching for nothing in my row; nothing reads them
     * in the order of a write's bytes) and {@link VsyncRow#trimReady} with its value 0, what every peer holds
     * while the data path runs (the flag is set only after wedging, and a pass with it up never merges: R4 wants
     * the flag alone after the trim). Never deferred: the guard goes out in the pass that moved it, as before, and
     * the counters deferred by earlier busy passes go with it. Any other case (a membership word changed, nothing
     * known yet, no word changed, the flag up, a layout where the guard is not next to the range) pushes the guard
     * first, on its own as {@link RingBatch} did, then the control range as {@link #push(Sst, List)} would.
     */
    void pushWithGuard(Sst sst, List<NodeId> targets, VsyncRow.Block block) {
        if (guardWord < 0) {
            sst.push(block.index, targets);
            push(sst, targets);
            return;
        }
        sst.readOwnWords(row.vid, block.index, now);
        int first = -1;
        boolean dataOnly = known && now[words] == 0;
        for (int i = 0; i < words && dataOnly; i++) {
            if (now[i] == pushed[i]) continue;
            if (!dataWord[i]) dataOnly = false;
            if (first < 0) first = i;
        }
        if (!dataOnly || first < 0) {
            sst.push(block.index, targets);
            push(sst, targets);
            return;
        }
        sst.pushWords(row.vid, first, guardWord + 1, targets);
        System.arraycopy(now, first, pushed, first, words - first);
        guardMerges++;
        partialPushes++;
    }

    /**
     * Records a whole-range push made elsewhere (the heartbeat's, with completion): the next push compares against
     * it. Without this the pass after each heartbeat found the heartbeat word changed and pushed the whole range
     * a second time. Safe: what it records is what that push sent (my row is written only by this engine's thread,
     * between the push and this call nothing writes it).
     */
    void recordWholePush(Sst sst) {
        int n = sst.readOwnWords(row.vid, row.lastCounter, now);
        System.arraycopy(now, 0, pushed, 0, n);
        known = true;
    }

    long guardMerges() {
        return guardMerges;
    }

    long partialPushes() {
        return partialPushes;
    }

    long fullPushes() {
        return fullPushes;
    }

    long deferredPushes() {
        return deferredPushes;
    }
}
