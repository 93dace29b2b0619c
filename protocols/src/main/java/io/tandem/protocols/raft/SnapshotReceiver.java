package io.tandem.protocols.raft;

import io.tandem.protocols.raft.RaftMessage.InstallSnapshot;
import io.tandem.protocols.raft.RaftMessage.InstallSnapshotResponse;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.SnapshotStore;
import io.tandem.storage.StorageEvent;
import java.util.function.LongSupplier;

/**
 * The receiving side of §7 InstallSnapshot: one snapshot arriving from the leader, chunk by chunk,
 * written in order by the storage. The snapshot's base record (index, term, configuration) must be
 * durable before the last chunk is written, because a restart needs both to find where the log
 * continues ({@code RaftEngine.recoverLog}). {@link RaftEngine} checks the sender's term and
 * leadership first, and installs the snapshot into the log when the storage reports it installed.
 *
 * <p>This state belongs to the node, not to a role: a receive that completes after the node
 * stopped following still installs the snapshot, as it is durable by then.
 */
final class SnapshotReceiver {
    /** Writes the base record a snapshot install is about to create; returns its meta-store token. */
    @FunctionalInterface
    interface BaseWriter {
        long saveBase(long index, long term, Configuration configuration);
    }

    /** A snapshot arriving from the leader. */
    static final class Receiving {
        final SnapshotMeta meta;
        final Configuration configuration;
        long expectedOffset;
        long configToken;
        boolean configSaved;
        boolean writeInFlight;
        long writeToken;
        int writeLength;
        InstallSnapshot heldLastChunk;
        boolean lastChunkInFlight;
        boolean installing;

        Receiving(SnapshotMeta meta, Configuration configuration) {
            this.meta = meta;
            this.configuration = configuration;
        }
    }

    private final SnapshotStore store;
    private final LongSupplier tokens;
    private Receiving receiving;

    SnapshotReceiver(SnapshotStore store, LongSupplier tokens) {
        this.store = store;
        this.tokens = tokens;
    }

    /**
     * A chunk from the leader of {@code term} for a snapshot beyond our commit index. Writes it if it
     * is the next one; returns the answer to send now, or null (the answer follows the write).
     */
    InstallSnapshotResponse offer(InstallSnapshot m, long term, BaseWriter bases) {
        long index = m.snapshot().lastIncludedIndex();
        if (receiving == null || !RaftEngine.sameSnapshot(receiving.meta, m.snapshot())) {
            if (m.offset() != 0) return new InstallSnapshotResponse(term, index, 0, false);
            // A chunk write in flight cannot be called back: once the storage writes a last chunk it restores
            // the state machine from it whatever we think, so forgetting that snapshot here would let the
            // engine go on delivering from its log on top of a state machine that moved (issue 16, seed 1454:
            // snapshot 80 still being written when snapshot 88 arrived; entry 73 was then delivered after 80).
            // The newer snapshot waits: the leader sends it again on its resend timer.
            if (receiving != null && (receiving.writeInFlight || receiving.installing)) return null;
            receiving = new Receiving(m.snapshot(), m.configuration());
            // The configuration must be on disk before the snapshot can be: a restart needs both.
            receiving.configToken = bases.saveBase(index, m.snapshot().lastIncludedTerm(), m.configuration());
        }
        if (receiving.installing || receiving.writeInFlight || receiving.heldLastChunk != null) return null; // busy with this chunk
        if (m.offset() != receiving.expectedOffset) return new InstallSnapshotResponse(term, index, receiving.expectedOffset, false);
        if (m.last() && !receiving.configSaved) {
            receiving.heldLastChunk = m;
            return null;
        }
        writeChunk(m);
        return null;
    }

    private void writeChunk(InstallSnapshot m) {
        receiving.writeInFlight = true;
        receiving.lastChunkInFlight = m.last();
        receiving.writeToken = tokens.getAsLong();
        receiving.writeLength = m.data().length;
        store.writeChunk(m.snapshot(), m.offset(), m.data(), m.last(), receiving.writeToken);
    }

    /**
     * A chunk write completed. Returns the answer asking the leader for the next chunk, or null if the
     * write was not ours or was the last chunk (the install follows; its answer says done).
     */
    InstallSnapshotResponse chunkWritten(StorageEvent.SnapshotChunkWritten s, long term) {
        if (receiving == null || s.token() != receiving.writeToken) return null;
        receiving.writeInFlight = false;
        receiving.expectedOffset = s.offset() + receiving.writeLength;
        if (s.last()) {
            receiving.installing = true;
            return null;
        }
        return new InstallSnapshotResponse(term, receiving.meta.lastIncludedIndex(), receiving.expectedOffset, false);
    }

    /**
     * A base record became durable: if it is the one of the snapshot being received, its held last chunk is
     * written, unless the engine has meanwhile delivered up to the snapshot's index ({@code delivered}): the
     * storage would restore the state machine to an older state than the one it has. That snapshot is then
     * forgotten; the leader's next try finds it covered by our commit index and is answered done.
     */
    void baseSaved(long token, long delivered) {
        if (receiving == null || token != receiving.configToken) return;
        receiving.configSaved = true;
        if (receiving.heldLastChunk != null) {
            InstallSnapshot last = receiving.heldLastChunk;
            receiving.heldLastChunk = null;
            if (last.snapshot().lastIncludedIndex() <= delivered) {
                receiving = null;
                return;
            }
            writeChunk(last);
        }
    }

    /**
     * True from the moment a last chunk is handed to the storage until the install is reported: the storage
     * restores the state machine in between, so the engine delivers nothing meanwhile.
     */
    boolean installPending() {
        return receiving != null && (receiving.installing || (receiving.writeInFlight && receiving.lastChunkInFlight));
    }

    /** The storage installed a snapshot; returns what was received if it is ours (and forgets it), else null. */
    Receiving installed(StorageEvent.SnapshotInstalled s) {
        if (receiving == null || !RaftEngine.sameSnapshot(receiving.meta, s.snapshot())) return null;
        Receiving r = receiving;
        receiving = null;
        return r;
    }

    /** A chunk write failed: the partial snapshot is forgotten, and the leader's next chunk makes it start over. */
    void writeFailed(long token) {
        if (receiving != null && token == receiving.writeToken) receiving = null;
    }
}
