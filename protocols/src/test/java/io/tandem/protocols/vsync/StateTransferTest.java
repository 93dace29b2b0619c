package io.tandem.protocols.vsync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.engine.RequestIds;
import io.tandem.storage.SnapshotMeta;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Both sides of state transfer to joiners (derecho.md §5.7) without an engine: what each asks the engine to read or write. */
class StateTransferTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final NodeId J = NodeId.of("j");
    private static final NodeId K = NodeId.of("k");
    private static final SnapshotMeta SNAP_40 = new SnapshotMeta(40, 0, 10, 0, new byte[0]);
    private static final SnapshotMeta SNAP_55 = new SnapshotMeta(55, 0, 10, 0, new byte[0]);
    private static final long RETRY = 1_000;

    // ---- the first member's side ----

    @Test
    void aTransferOwnsOnlyItsOwnTokenAndReadsOnceTheSnapshotIsTaken() {
        StateTransfer t = new StateTransfer();
        t.start(List.of(J, K), 7, 100);
        assertThat(t.owns(7)).isTrue();
        assertThat(t.owns(8)).isFalse();
        assertThat(t.joiners()).containsExactly(J, K);
        assertThat(t.restart(200)).as("no snapshot yet: nothing to read again").isNull();
        assertThat(t.snapshotTaken(SNAP_40)).isTrue();
        t.start(List.of(K), 9, 300);
        assertThat(t.owns(7)).as("a newer transfer disowns the old snapshot's late events").isFalse();
        assertThat(t.restart(400)).as("the new transfer has no snapshot of its own yet").isNull();
    }

    @Test
    void aSnapshotNobodyWaitsForIsNotRead() {
        StateTransfer t = new StateTransfer();
        t.start(List.of(J), 3, 0);
        t.abandon();
        assertThat(t.snapshotTaken(SNAP_40)).isFalse();
    }

    @Test
    void joinersThatLeftOrArrivedAreDroppedChunkByChunk() {
        StateTransfer t = new StateTransfer();
        t.start(List.of(J, K), 3, 0);
        assertThat(t.keepOnly(n -> !n.equals(J))).isTrue();
        assertThat(t.joiners()).containsExactly(K);
        assertThat(t.keepOnly(n -> false)).isFalse();
        assertThat(t.joiners()).isEmpty();
    }

    @Test
    void aRepeatedJoinRequestRestartsOnlyAfterTheReadEndedAndTheRetryPeriodPassed() {
        StateTransfer t = new StateTransfer();
        t.start(List.of(J), 3, 1_000);
        t.snapshotTaken(SNAP_40);
        assertThat(t.retryDue(J, 5_000, RETRY)).as("still reading").isFalse();
        t.readEnded();
        assertThat(t.retryDue(J, 1_900, RETRY)).as("within the retry period").isFalse();
        assertThat(t.retryDue(K, 5_000, RETRY)).as("not one of its joiners").isFalse();
        assertThat(t.retryDue(J, 5_000, RETRY)).isTrue();
        assertThat(t.restart(5_000)).isEqualTo(SNAP_40);
        assertThat(t.retryDue(J, 9_000, RETRY)).as("reading again").isFalse();
    }

    @Test
    void aTransferTokenIsPositive() {
        assertThatThrownBy(() -> new StateTransfer().start(List.of(J), 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---- the joiner's side ----

    private static VsyncMessage.StateChunk chunk(long vid, SnapshotMeta snap, long offset, int bytes, boolean last) {
        return new VsyncMessage.StateChunk(vid, List.of(A, B, J), List.of(List.of(A, B, J)), List.of(new ShardId("kv", 0)), List.of(B), snap, offset,
                new byte[bytes], last, RequestIds.BACKGROUND);
    }

    @Test
    void chunksAreWrittenInOrderAndTheLastGetsANegativeInstallToken() {
        IncomingState in = new IncomingState();
        assertThat(in.offer(chunk(4, SNAP_40, 0, 5, false), false)).hasValue(0);
        assertThat(in.members()).containsExactly(A, B, J);
        assertThat(in.offer(chunk(4, SNAP_40, 9, 5, true), false)).as("a gap: dropped").isEmpty();
        OptionalLong last = in.offer(chunk(4, SNAP_40, 5, 5, true), false);
        assertThat(last.getAsLong()).isNegative();
        assertThat(in.installs(last.getAsLong(), SNAP_40)).isTrue();
        assertThat(in.installs(last.getAsLong(), SNAP_55)).isFalse();
        IncomingState.Installed done = in.installed();
        assertThat(done.vid()).isEqualTo(4);
        assertThat(done.members()).containsExactly(A, B, J);
        assertThat(done.sources()).isEqualTo(Map.of(new ShardId("kv", 0), B));
        assertThat(in.members()).as("receiving ended").isEmpty();
    }

    @Test
    void aSecondCopyIsDroppedWhileOneIsWithTheStoreUnlessTheTwinAsks() {
        IncomingState in = new IncomingState();
        long token = in.offer(chunk(4, SNAP_40, 0, 5, true), false).getAsLong();
        assertThat(in.offer(chunk(5, SNAP_55, 0, 5, true), false)).isEmpty();
        assertThat(in.copiesIgnored()).isEqualTo(1);
        assertThat(in.offer(chunk(5, SNAP_55, 0, 5, false), true)).as("the broken twin's rule takes it").hasValue(0);
        in.failed(token);
        assertThat(in.offer(chunk(5, SNAP_55, 0, 5, true), false)).as("the failed write lets the next copy through").isPresent();
    }

    @Test
    void anOlderViewsCopyDoesNotReplaceANewerOne() {
        IncomingState in = new IncomingState();
        in.offer(chunk(6, SNAP_55, 0, 5, false), false);
        assertThat(in.offer(chunk(5, SNAP_40, 0, 5, false), false)).isEmpty();
        assertThat(in.offer(chunk(6, SNAP_55, 5, 5, false), false)).hasValue(0);
        in.reset();
        assertThat(in.offer(chunk(5, SNAP_40, 0, 5, false), false)).as("after a reset any view starts over").hasValue(0);
    }
}
