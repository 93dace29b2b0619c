package io.tandem.protocols.vsync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.protocols.vsync.layout.DeliveryMode;
import io.tandem.protocols.vsync.layout.Layout;
import io.tandem.protocols.vsync.layout.LayoutFunction;
import io.tandem.protocols.vsync.layout.LayoutResult;
import io.tandem.protocols.vsync.layout.ShardAllocator;
import io.tandem.protocols.vsync.layout.SubgroupPolicy;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The pure parts of durable shards (derecho.md §4.6, §5.9): the persisted frontier, the log records, the restart leader's rules. */
class DurableShardsTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final NodeId N4 = NodeId.of("n4");
    private static final NodeId N5 = NodeId.of("n5");
    private static final List<NodeId> FIVE = List.of(N1, N2, N3, N4, N5);
    private static final ShardId STORE = new ShardId("store", 0);
    private static final LayoutFunction ONE_SHARD = new ShardAllocator(List.of(new SubgroupPolicy("store", 1, 1, 5, DeliveryMode.DURABLE)));

    private static long v(long vid, long position) {
        return vid << 32 | position;
    }

    // ---- the persisted frontier (D5: every member of the shard) ----

    @Test
    void theFrontierIsTheLowestVersionEveryMemberPersisted() {
        // Columns are one more than a version; 0 means "does not hold the whole history yet".
        assertThat(DurableShards.frontier(v(3, 9) + 1, v(3, 4) + 1, v(3, 7) + 1)).isEqualTo(v(3, 4));
        assertThat(DurableShards.frontier(v(3, 9) + 1, 0, v(3, 7) + 1)).as("a member still copying the history holds it back").isEqualTo(-1);
        assertThat(DurableShards.frontier(1, 1)).as("every member complete, nothing on disk yet").isZero();
        assertThat(DurableShards.frontier()).isEqualTo(-1);
    }

    @Test
    void aMemberPublishesNothingUntilItHoldsTheHistoryOnDisk() {
        DurableShards.ShardLog log = new DurableShards.ShardLog(STORE);
        log.complete = true;
        log.add(10, new VsyncMessage.HistoryEntry(v(2, 0), N1, new byte[] {1}));
        log.add(11, new VsyncMessage.HistoryEntry(v(2, 1), N2, new byte[] {2}));
        assertThat(log.persistedColumn(9)).isEqualTo(1); // complete, nothing durable
        log.notDurableUpTo(10);
        assertThat(log.persistedColumn(10)).isEqualTo(v(2, 0) + 1);
        log.completeIndex = 12; // the Complete record of a copied history is not durable yet
        log.notDurableUpTo(11);
        assertThat(log.persistedColumn(11)).isZero();
        assertThat(log.persistedColumn(12)).isEqualTo(v(2, 1) + 1);
        log.complete = false;
        assertThat(log.persistedColumn(12)).isZero();
        assertThat(log.before(2)).isEmpty();
        assertThat(log.before(3)).hasSize(2);
    }

    // ---- log records ----

    @Test
    void recordsSurviveTheirBytes() {
        List<DurableRecord> records = List.of(
                new DurableRecord.View(7, 2, FIVE, List.of(List.of(N1, N2), List.of(N3)), true, Map.of()),
                new DurableRecord.View(8, 0, List.of(N2, N3), List.of(List.of(N2, N3)), false, Map.of(STORE, N3, new ShardId("kv", 1), N2)),
                new DurableRecord.Entry(STORE, v(7, 12), N4, "payload".getBytes()),
                new DurableRecord.Reset(STORE),
                new DurableRecord.Complete(STORE, 8));
        for (DurableRecord r : records) {
            DurableRecord back = DurableRecord.decode(DurableRecord.encode(r));
            if (r instanceof DurableRecord.Entry e) {
                DurableRecord.Entry b = (DurableRecord.Entry) back;
                assertThat(b.shard()).isEqualTo(e.shard());
                assertThat(b.version()).isEqualTo(e.version());
                assertThat(b.sender()).isEqualTo(e.sender());
                assertThat(b.payload()).isEqualTo(e.payload());
            } else {
                assertThat(back).isEqualTo(r);
            }
        }
    }

    @Test
    void bytesThatAreNoRecordAreRejectedWithAReason() {
        assertThatThrownBy(() -> DurableRecord.decode(new byte[] {9, 1, 2})).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a virtual-synchrony log record");
        assertThatThrownBy(() -> DurableRecord.decode(new byte[] {DurableRecord.ENTRY, 0, 0})).isInstanceOf(IllegalArgumentException.class);
        byte[] view = DurableRecord.encode(new DurableRecord.View(2, 0, FIVE, List.of(FIVE), true, Map.of()));
        assertThatThrownBy(() -> DurableRecord.decode(java.util.Arrays.copyOf(view, view.length - 3))).isInstanceOf(IllegalArgumentException.class);
    }

    // ---- the restart leader's rules (§5.9) ----

    private static Layout layoutOf(List<NodeId> members, List<List<NodeId>> shards) {
        return ((LayoutResult.Adequate) ONE_SHARD.allocate(Layout.EMPTY, shards.isEmpty() ? members : shards.getFirst())).layout();
    }

    private static RestartPlanner.Report report(NodeId from, long vid, List<NodeId> view, boolean holds, long last) {
        return new RestartPlanner.Report(from, vid, 0, view, List.of(view), holds ? Set.of(STORE) : Set.of(), last == 0 ? Map.of() : Map.of(STORE, last));
    }

    private static RestartPlanner.Outcome decide(RestartPlanner.Report... reports) {
        return RestartPlanner.decide(List.of(reports), FIVE, ONE_SHARD, DurableShardsTest::layoutOf);
    }

    @Test
    void theLeaderWaitsForAMajorityOfTheNewestViewAnyoneLogged() {
        List<NodeId> v4 = List.of(N2, N3, N4);
        // n1 and n5 know view 3 of five members; n2 logged view 4 of three: a majority of view 4 is two of n2, n3, n4.
        assertThat(decide(report(N1, 3, FIVE, true, v(3, 5)), report(N5, 3, FIVE, true, v(3, 5)), report(N2, 4, v4, true, v(4, 2))))
                .isInstanceOf(RestartPlanner.Waiting.class);
        RestartPlanner.Outcome o = decide(report(N1, 3, FIVE, true, v(3, 5)), report(N2, 4, v4, true, v(4, 2)), report(N3, 4, v4, true, v(4, 1)));
        assertThat(o).isInstanceOf(RestartPlanner.Decided.class);
        RestartPlanner.Decision d = ((RestartPlanner.Decided) o).decision();
        assertThat(d.vid()).isEqualTo(5);
        assertThat(d.members()).as("the last view's reporters in its order, then the others").containsExactly(N2, N3, N1);
        assertThat(d.sources()).containsEntry(STORE, N2); // the longest log
    }

    @Test
    void theLeaderWaitsForAReporterHoldingEachDurableShard() {
        List<NodeId> v4 = List.of(N2, N3, N4);
        // n3 and n4 are new to the shard in view 4 and have not copied its history: the restart must wait for n2.
        assertThat(decide(report(N3, 4, v4, false, 0), report(N4, 4, v4, false, v(1, 3))))
                .isInstanceOfSatisfying(RestartPlanner.Waiting.class, w -> assertThat(w.reason()).contains("holds the history of durable shard store/0"));
        assertThat(decide(report(N3, 4, v4, false, 0), report(N4, 4, v4, false, v(1, 3)), report(N2, 4, v4, true, v(4, 1)))).isInstanceOf(RestartPlanner.Decided.class);
    }

    @Test
    void theLongestLogIsChosenEvenFromAMemberThatDoesNotHoldTheShardAnyMore() {
        List<NodeId> v6 = List.of(N1, N2, N3);
        // n1 holds it with a log cut short by the crash (unsynced tail lost); n3 has more of view 6.
        RestartPlanner.Decision d = ((RestartPlanner.Decided) decide(report(N1, 6, v6, true, v(6, 3)), report(N3, 6, v6, true, v(6, 8)))).decision();
        assertThat(d.sources()).containsEntry(STORE, N3);
        // Equal logs: one that holds the shard wins the tie.
        d = ((RestartPlanner.Decided) decide(report(N1, 6, v6, false, v(6, 8)), report(N3, 6, v6, true, v(6, 8)))).decision();
        assertThat(d.sources()).containsEntry(STORE, N3);
    }

    @Test
    void ofTwoRecordsOfOneViewTheHigherBallotCounts() {
        // n1 led view 6's change, logged a proposal {n1,n2,n3} and crashed; n2 took over and installed {n2,n3,n4,n5}.
        RestartPlanner.Report stale = new RestartPlanner.Report(N1, 7, 1, List.of(N1, N2, N3), List.of(List.of(N1, N2, N3)), Set.of(STORE), Map.of(STORE, v(6, 4)));
        List<NodeId> real = List.of(N2, N3, N4, N5);
        RestartPlanner.Report n2 = new RestartPlanner.Report(N2, 7, 2, real, List.of(real), Set.of(STORE), Map.of(STORE, v(7, 4)));
        RestartPlanner.Report n3 = new RestartPlanner.Report(N3, 7, 2, real, List.of(real), Set.of(STORE), Map.of(STORE, v(7, 3)));
        // Two of view 7's four members are not a majority.
        assertThat(RestartPlanner.decide(List.of(stale, n2, n3), FIVE, ONE_SHARD, DurableShardsTest::layoutOf)).isInstanceOf(RestartPlanner.Waiting.class);
        RestartPlanner.Report n4 = new RestartPlanner.Report(N4, 7, 2, real, List.of(real), Set.of(STORE), Map.of(STORE, v(7, 4)));
        RestartPlanner.Decision d = ((RestartPlanner.Decided) RestartPlanner.decide(List.of(stale, n2, n3, n4), FIVE, ONE_SHARD, DurableShardsTest::layoutOf)).decision();
        assertThat(d.vid()).isEqualTo(8);
        assertThat(d.members()).containsExactly(N2, N3, N4, N1);
    }
}
