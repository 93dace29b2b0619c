package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import io.tandem.storage.SnapshotMeta;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The first member's side of state transfer to the joiners of a new view (derecho.md §5.7), as
 * bookkeeping the engine drives: which joiners still wait, the token of the snapshot taken for them,
 * and whether its chunks are being read. It reads and sends nothing itself; its answers say what to
 * read next.
 *
 * <p>One transfer at a time: a new view with joiners replaces the old transfer (its token changes, so
 * the old snapshot's late storage events no longer match {@link #owns}). A joiner that lost chunks asks
 * to join again; the transfer is read again from the start only once the previous read has ended and
 * the retry period has passed ({@link #retryDue}), so repeated requests do not start parallel reads.
 */
final class StateTransfer {
    private final LinkedHashSet<NodeId> joiners = new LinkedHashSet<>();
    private final Set<NodeId> joinersView = Collections.unmodifiableSet(joiners);
    /** The token of the transfer's snapshot and reads: positive once a transfer started, 0 before. */
    private long token;
    /** The snapshot taken for the transfer, once the store has taken it. */
    private SnapshotMeta snapshot;
    /** A chunk read of the transfer is with the store. */
    private boolean reading;
    private long startedAt;

    /** Starts a transfer to {@code to} under {@code newToken} (positive): the engine takes a snapshot with it. */
    void start(Collection<NodeId> to, long newToken, long now) {
        if (newToken <= 0) throw new IllegalArgumentException("a transfer token is positive: " + newToken);
        joiners.clear();
        joiners.addAll(to);
        snapshot = null;
        token = newToken;
        reading = true;
        startedAt = now;
    }

    /** Whether a storage event with this token belongs to the transfer. */
    boolean owns(long eventToken) {
        return eventToken == token;
    }

    long token() {
        return token;
    }

    /** The joiners that still wait for the state, in the order they were named. */
    Set<NodeId> joiners() {
        return joinersView;
    }

    /**
     * The store took the transfer's snapshot.
     *
     * @return whether anyone still waits for it (then the engine reads its first chunk)
     */
    boolean snapshotTaken(SnapshotMeta taken) {
        if (joiners.isEmpty()) return false;
        snapshot = taken;
        return true;
    }

    /**
     * A chunk was read: drops the joiners that left or are now in the view.
     *
     * @return whether anyone still waits (then the engine sends the chunk to {@link #joiners})
     */
    boolean keepOnly(Predicate<NodeId> stillJoining) {
        joiners.removeIf(stillJoining.negate());
        return !joiners.isEmpty();
    }

    /** The read ended (its last chunk was sent, it failed, or nobody waits any longer). */
    void readEnded() {
        reading = false;
    }

    /** Whether a repeated join request of {@code from} should restart the transfer ({@link #restart}). */
    boolean retryDue(NodeId from, long now, long retryNanos) {
        return joiners.contains(from) && !reading && now - startedAt > retryNanos;
    }

    /**
     * Reads the transfer again from its start.
     *
     * @return the snapshot to read from offset 0, or null if the store has not taken it yet (nothing to do)
     */
    SnapshotMeta restart(long now) {
        if (snapshot == null) return null;
        reading = true;
        startedAt = now;
        return snapshot;
    }

    /** This member shut down: nobody is served any longer (late reads find no joiner). */
    void abandon() {
        joiners.clear();
    }
}
