package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import io.tandem.protocols.raft.RaftMessage.InstallSnapshotResponse;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.SnapshotStore;
import io.tandem.storage.StorageEvent;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The leader's side of §7 InstallSnapshot, for followers that need entries the log no longer holds.
 * The newest snapshot is streamed in chunks that the storage reads off the loop; each follower has
 * at most one chunk being read or in flight (DESIGN §3 rule 2: a slow follower holds one chunk, not
 * a queue), and the next is read only once the follower wrote the previous one. A stalled transfer
 * is resumed only by the resend timer, which starts over from a newer snapshot if one replaced it.
 * Lives in {@link LeaderState}: chunk reads outstanding at step-down are forgotten with it.
 */
final class SnapshotSender {
    private final SnapshotStore store;
    private final RaftLog log;
    private final int chunkBytes;
    private final LongSupplier tokens;
    /** Chunk reads in progress: storage token to the follower it is for. */
    private final Map<Long, NodeId> chunkReads = new TreeMap<>();

    SnapshotSender(SnapshotStore store, RaftLog log, int chunkBytes, LongSupplier tokens) {
        this.store = store;
        this.log = log;
        this.chunkBytes = chunkBytes;
        this.tokens = tokens;
    }

    /** Moves {@code p} to snapshot mode and starts sending it the newest snapshot from the beginning. */
    void start(Peer p, long now) {
        Optional<SnapshotMeta> latest = store.latest();
        p.link.clearInflight();
        p.probeOutstanding = false;
        p.mode = Peer.Mode.SNAPSHOT;
        p.link.restartProgressWait(now);
        if (latest.isEmpty() || latest.get().lastIncludedIndex() < log.baseIndex()) {
            // Cannot happen while compaction only follows snapshots; the resend timer retries.
            p.snapshot = null;
            return;
        }
        p.snapshot = latest.get();
        p.snapshotConfig = log.configurationAt(p.snapshot.lastIncludedIndex());
        p.snapshotOffset = 0;
        p.chunkOutstanding = false;
        readChunk(p, now);
    }

    /** Snapshot data is read by the storage, off the loop; one chunk per follower at a time. */
    private void readChunk(Peer p, long now) {
        if (p.snapshot == null) {
            start(p, now);
            return;
        }
        long token = tokens.getAsLong();
        p.chunkReadToken = token;
        chunkReads.put(token, p.id);
        store.readChunk(p.snapshot, p.snapshotOffset, chunkBytes, token);
    }

    /**
     * A chunk read completed. Returns the follower to send it to, now marked as having it in flight,
     * or null if the read is no longer wanted (the follower left, or its transfer started over).
     */
    Peer chunkRead(StorageEvent.SnapshotChunkRead s, Map<NodeId, Peer> peers, long now) {
        NodeId id = chunkReads.remove(s.token());
        Peer p = id == null ? null : peers.get(id);
        if (p == null || p.mode != Peer.Mode.SNAPSHOT || p.chunkReadToken != s.token()) return null;
        p.chunkReadToken = 0;
        p.chunkOutstanding = true;
        p.chunkSentAt = now;
        return p;
    }

    /**
     * The follower wrote a chunk and asks for {@code m.nextOffset()}: the next chunk is read.
     * Duplicated and stale answers are ignored, so they never cause a second read.
     */
    void chunkAnswered(Peer p, InstallSnapshotResponse m, long now) {
        if (p.mode != Peer.Mode.SNAPSHOT || p.snapshot == null || m.lastIncludedIndex() != p.snapshot.lastIncludedIndex()) return;
        if (m.nextOffset() == p.snapshotOffset && (p.chunkReadToken != 0 || p.chunkOutstanding)) return; // duplicate answer
        if (p.chunkOutstanding) p.link.sampleRoundTrip(now - p.chunkSentAt);
        p.link.progressed(now);
        p.snapshotOffset = m.nextOffset();
        p.chunkOutstanding = false;
        readChunk(p, now);
    }

    /**
     * The resend timer found {@code p}'s transfer stalled: the chunk is read and sent again, or the
     * transfer starts over if a newer snapshot replaced the one being sent.
     */
    void resend(Peer p, long now) {
        chunkReads.remove(p.chunkReadToken);
        p.chunkReadToken = 0;
        Optional<SnapshotMeta> latest = store.latest();
        if (latest.isPresent() && !RaftEngine.sameSnapshot(latest.get(), p.snapshot)) {
            start(p, now); // a newer snapshot replaced the one we were sending
        } else {
            p.chunkOutstanding = false;
            readChunk(p, now);
        }
    }

    /** A chunk read failed (the snapshot was replaced): the follower's transfer starts again on the resend timer. */
    void readFailed(long token, Map<NodeId, Peer> peers) {
        NodeId id = chunkReads.remove(token);
        Peer p = id == null ? null : peers.get(id);
        if (p != null && p.chunkReadToken == token) {
            p.chunkReadToken = 0;
            p.chunkOutstanding = false;
            p.snapshot = null; // the next attempt starts from the newest snapshot
        }
    }
}
