package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import io.tandem.storage.SnapshotMeta;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A joiner's side of state transfer (derecho.md §5.7), as bookkeeping the engine drives: the view
 * that takes it in, the chunks of that view's state received so far, and the store write of the
 * whole copy. It writes nothing itself: {@link #offer} says whether and how a chunk is written.
 *
 * <p>Chunks are taken only in order from offset 0 of one snapshot; a chunk of a newer view's state at
 * offset 0 starts over with that view. A whole copy written to the store is restored by the store on
 * completion whatever the engine does then, so while one is in flight further copies are dropped
 * (see {@link #offer}).
 */
final class IncomingState {
    /** The view whose state is being received, and its shape as the first member sent it. */
    private long vid;
    private List<NodeId> members = List.of();
    private List<List<NodeId>> shards = List.of();
    private List<ShardId> sourceShards = List.of();
    private List<NodeId> sources = List.of();
    private SnapshotMeta snapshot;
    /** The next offset expected of {@link #snapshot}. */
    private long offset;
    /** The token of the store write whose last chunk is with the store (negative: never a transfer's token), or 0. */
    private long installInFlight;
    private long installTokens;
    private long copiesIgnored;

    /** What a joiner installs once the store restored the state. */
    record Installed(long vid, List<NodeId> members, List<List<NodeId>> shards, Map<ShardId, NodeId> sources) {}

    /** Starting to join (again): no view's state is being received. */
    void reset() {
        vid = 0;
        members = List.of();
        offset = 0;
        snapshot = null;
    }

    /** The members of the view whose state is arriving (empty if none). */
    List<NodeId> members() {
        return members;
    }

    /**
     * A chunk of state arrived.
     *
     * @param acceptWhileInstalling whether a copy may be taken while a whole one is with the store (only a
     *     broken twin says yes)
     * @return the token to write the chunk with (0 for a middle chunk, negative for the last one), or empty
     *     if the chunk is dropped
     */
    OptionalLong offer(VsyncMessage.StateChunk c, boolean acceptWhileInstalling) {
        if (installInFlight != 0 && !acceptWhileInstalling) {
            // A whole copy of the state is with the store, which restores the state machine from it when
            // the write completes, whatever the engine does then. A second copy (the first member sends
            // the state again when my join request repeats, and a slow disk makes that likely) would be
            // restored on its own completion, and store writes complete in any order: the late one would
            // rewind the state machine to the view's start after I had applied the view's first messages
            // on top of the early one (seed 18 of ./tandem sim: applied 44..48, then back to 43, then 49).
            // Dropping it is safe: the copy in flight ends in SnapshotInstalled, which takes me in, or in
            // SnapshotFailed, which clears this and lets the next copy through; a copy of a newer view
            // that I drop is sent again while I am still not in that view (the first member restarts the
            // transfer on my repeated requests), and installing the older view first only means I find
            // the group moved on and join again.
            copiesIgnored++;
            return OptionalLong.empty();
        }
        if (c.offset() == 0 && c.vid() >= vid) {
            vid = c.vid();
            members = c.members();
            shards = c.shards();
            sourceShards = c.sourceShards();
            sources = c.sources();
            snapshot = c.snapshot();
            offset = 0;
        }
        if (c.vid() != vid || !c.snapshot().equals(snapshot) || c.offset() != offset) return OptionalLong.empty();
        offset += c.data().length;
        if (!c.last()) return OptionalLong.of(0);
        installInFlight = -(++installTokens); // negative: never equal to a transfer's token, which is positive
        return OptionalLong.of(installInFlight);
    }

    /** Whether a completed store write is the copy this joiner is waiting for. */
    boolean installs(long token, SnapshotMeta installed) {
        return token == installInFlight && installed.equals(snapshot);
    }

    /** A store write failed: the copy is received again from offset 0. */
    void failed(long token) {
        if (token == installInFlight) installInFlight = 0;
        offset = 0;
    }

    /** The store restored the state: what to install. Receiving ends. */
    Installed installed() {
        installInFlight = 0;
        Map<ShardId, NodeId> bySource = new LinkedHashMap<>();
        for (int i = 0; i < sourceShards.size(); i++) bySource.put(sourceShards.get(i), sources.get(i));
        Installed out = new Installed(vid, members, shards, bySource);
        snapshot = null;
        members = List.of();
        return out;
    }

    /** Whole copies dropped because another was with the store. */
    long copiesIgnored() {
        return copiesIgnored;
    }
}
