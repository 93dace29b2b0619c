package io.tandem.sim.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The queues added for co-located nodes and real connections (issue 18, session 12): the disk device the nodes of one
 * machine share, the stalls of a receiving endpoint, and a sender's per-peer outbox behind a connection window. All in
 * virtual time (the test scheduler): what is asserted is order and grouping, never wall-clock timing.
 */
class SharedQueuesTest {
    // ---- the shared disk device ----

    @Test
    void aLoneSyncTakesOneCommit() {
        TestScheduler clock = new TestScheduler();
        DiskDevice device = new DiskDevice("d", Distribution.fixed(100), 0, new SplittableRandom(1), clock);
        long[] done = {-1};
        device.sync(10, () -> done[0] = clock.now());
        clock.runAll();
        assertThat(done[0]).isEqualTo(100);
        assertThat(device.commits()).isEqualTo(1);
        assertThat(device.syncs()).isEqualTo(1);
    }

    @Test
    void syncsAskedForDuringACommitShareTheNextOne() {
        TestScheduler clock = new TestScheduler();
        DiskDevice device = new DiskDevice("d", Distribution.fixed(100), 0, new SplittableRandom(1), clock);
        List<String> order = new ArrayList<>();
        device.sync(10, () -> order.add("n1@" + clock.now()));
        clock.at(30, () -> device.sync(10, () -> order.add("n2@" + clock.now())));
        clock.at(60, () -> device.sync(10, () -> order.add("n3@" + clock.now())));
        clock.runAll();
        // n1's commit runs 0..100; n2 and n3 asked during it and are served together by the commit 100..200.
        assertThat(order).containsExactly("n1@100", "n2@200", "n3@200");
        assertThat(device.commits()).isEqualTo(2);
        assertThat(device.syncs()).isEqualTo(3);
        assertThat(device.maxGroup()).isEqualTo(2);
    }

    @Test
    void aCommitCarriesTheBytesOfEverySyncInIt() {
        TestScheduler clock = new TestScheduler();
        DiskDevice device = new DiskDevice("d", Distribution.fixed(100), 1e9, new SplittableRandom(1), clock); // 1 byte per ns
        long[] done = new long[2];
        device.sync(0, () -> {});
        clock.at(1, () -> device.sync(1_000, () -> done[0] = clock.now()));
        clock.at(2, () -> device.sync(2_000, () -> done[1] = clock.now()));
        clock.runAll();
        assertThat(done[0]).isEqualTo(100 + 100 + 3_000).isEqualTo(done[1]);
        assertThat(device.busyNanos()).isEqualTo(100 + 100 + 3_000);
    }

    @Test
    void aSyncAskedForWhenACommitEndsWaitsForTheFollowingOne() {
        TestScheduler clock = new TestScheduler();
        DiskDevice device = new DiskDevice("d", Distribution.fixed(100), 0, new SplittableRandom(1), clock);
        long[] second = {-1};
        // Asking again from the completion (as a storage that had more appended meanwhile does) starts a new commit.
        device.sync(0, () -> device.sync(0, () -> second[0] = clock.now()));
        clock.runAll();
        assertThat(second[0]).isEqualTo(200);
        assertThat(device.commits()).isEqualTo(2);
    }

    @Test
    void aNodesThrottleAndExtraLatencyActAroundTheSharedDevice() {
        TestScheduler clock = new TestScheduler();
        DiskDevice device = new DiskDevice("d", Distribution.fixed(100), 0, new SplittableRandom(1), clock);
        DiskModel slow = new DiskModel(Distribution.fixed(999_999), 0, new SplittableRandom(1));
        DiskModel fast = new DiskModel(Distribution.fixed(999_999), 0, new SplittableRandom(1));
        slow.attachDevice(device, clock);
        fast.attachDevice(device, clock);
        slow.setBandwidth(1e9); // its cgroup's throttle: 1,000 bytes take 1,000 ns before they reach the device
        slow.setExtraLatency(7);
        long[] done = {-1, -1};
        slow.flush(1_000, () -> done[0] = clock.now());
        fast.flush(1_000, () -> done[1] = clock.now());
        clock.runAll();
        assertThat(done[1]).isEqualTo(100); // the device's own draw, not the node's distribution
        assertThat(done[0]).isEqualTo(1_000 + 100 + 7);
        assertThat(device.commits()).isEqualTo(2);
        assertThat(slow.flushes()).isEqualTo(1);
    }

    @Test
    void sharedPlacementGivesTheNodesOneDeviceAndDedicatedNone() {
        CostModel shared = new CostModel(CostTable.uncalibrated(), CostModel.Resources.shared(2), 1);
        shared.attach(new TestScheduler(), List.of("n1", "n2", "n3"));
        assertThat(shared.device()).isNotNull();
        assertThat(shared.disk("n1").device()).isSameAs(shared.disk("n3").device()).isSameAs(shared.device());
        CostModel separate = new CostModel(CostTable.uncalibrated(), CostModel.Resources.shared(2).withSeparateDisks(), 1);
        separate.attach(new TestScheduler(), List.of("n1", "n2"));
        assertThat(separate.device()).isNull();
        assertThat(separate.disk("n1").device()).isNull();
        assertThatThrownBy(() -> new CostModel.Resources(1, 0, 1, false, 1, true)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---- stalls of a receiving endpoint ----

    @Test
    void noStallsLeaveArrivalsAlone() {
        LinkStalls stalls = new LinkStalls(0, Distribution.fixed(1_000), new SplittableRandom(1));
        for (long t = 0; t < 1_000_000; t += 997) assertThat(stalls.readAt(0, t)).isEqualTo(t);
        assertThat(stalls.stalls()).isZero();
    }

    @Test
    void aMessageReachingAStalledEndpointIsReadWhenTheStallEnds() {
        LinkStalls stalls = new LinkStalls(1_000, Distribution.fixed(50_000), new SplittableRandom(3)); // 1,000 per s, 50 µs each
        long stalled = 0;
        for (long t = 0; t < 1_000_000_000L; t += 10_000) {
            long read = stalls.readAt(Math.max(0, t - 1_000_000), t);
            assertThat(read).isGreaterThanOrEqualTo(t).isLessThanOrEqualTo(t + 50_000);
            if (read > t) stalled++;
        }
        // Stalls are events in time: their number follows the rate and the window, not the number of messages asked about.
        assertThat(stalls.stalls()).isBetween(800L, 1_200L);
        assertThat(stalled).isPositive();
    }

    @Test
    void theSameStallHoldsEveryMessageInItWhateverTheOrderOfTheQuestions() {
        LinkStalls stalls = new LinkStalls(10, Distribution.fixed(10_000_000), new SplittableRandom(5));
        // Find a stall, then ask about two instants inside it in reverse order: both are read at its end.
        long t = 0;
        while (stalls.readAt(0, t) == t) t += 100_000;
        long end = stalls.readAt(0, t);
        assertThat(stalls.readAt(0, t + 1_000)).isEqualTo(end);
        assertThat(stalls.readAt(0, t - 1)).isIn(t - 1, end);
    }

    @Test
    void theNetworkDrawsStallsPerReceiverAndKeepsLinksFifo() {
        NetworkModel net = new NetworkModel(Distribution.fixed(100), 0, new SplittableRandom(1));
        net.setStalls(2_000, Distribution.fixed(1_000_000), new SplittableRandom(9));
        long last = 0;
        for (int i = 0; i < 1_000; i++) {
            long now = i * 100_000L;
            long a = net.arrival("n1", "n2", now, 10);
            assertThat(a).isGreaterThanOrEqualTo(Math.max(now + 100, last));
            last = a;
        }
        assertThat(net.stalls("n2")).isPositive();
        assertThat(net.stalls("n1")).isZero();
    }

    @Test
    void aTableWithStallsTakesItsPerMessageLatencyBelowTheTail() {
        CostTable t = CostTable.of(Map.of("disk.fsync", "1", "net.oneway", "0:10,0.99:20,1:5000", "net.base", "0:10,1:20",
                "net.stall.perSecond", "3.5", "net.stall", "0:100,1:900"));
        assertThat(t.stallsPerSecond()).isEqualTo(3.5);
        assertThat(t.networkBase().quantile(1)).isEqualTo(20);
        assertThat(t.stallDuration().quantile(1)).isEqualTo(900);
        CostTable without = CostTable.of(Map.of("disk.fsync", "1", "net.oneway", "0:10,0.99:20,1:5000"));
        assertThat(without.stallsPerSecond()).isZero();
        assertThat(without.networkBase().quantile(1)).isEqualTo(5000);
        assertThat(without.windowBytes()).isZero();
        assertThat(without.outboxLimits().highMessages()).isEqualTo(65_536);
    }

    // ---- a sender's per-peer outbox behind the connection's window ----

    private static PeerOutbox.Frame frame(long bytes, List<Long> wire) {
        return new PeerOutbox.Frame(bytes, false, () -> wire.add(bytes));
    }

    @Test
    void framesGoStraightIntoTheSocketWhileTheWindowHasRoom() {
        PeerOutbox o = new PeerOutbox(1_000, PeerOutbox.Limits.unbounded());
        List<Long> wire = new ArrayList<>();
        assertThat(o.offer(frame(400, wire))).isEqualTo(PeerOutbox.Offer.WRITTEN);
        assertThat(o.offer(frame(600, wire))).isEqualTo(PeerOutbox.Offer.WRITTEN);
        assertThat(o.inKernel()).isEqualTo(1_000);
        assertThat(o.queuedBytes()).isZero();
    }

    @Test
    void aFullWindowQueuesFramesOnTheSenderUntilTheReaderCatchesUp() {
        PeerOutbox o = new PeerOutbox(1_000, PeerOutbox.Limits.unbounded());
        List<Long> wire = new ArrayList<>();
        o.offer(frame(800, wire));
        assertThat(o.writable(300)).isFalse();
        assertThat(o.offer(frame(300, wire))).isEqualTo(PeerOutbox.Offer.QUEUED);
        assertThat(o.offer(frame(100, wire))).isEqualTo(PeerOutbox.Offer.QUEUED); // fits, but may not overtake the queued one
        assertThat(o.queuedBytes()).isEqualTo(400);
        assertThat(o.queuedMessages()).isEqualTo(2);
        // The reader read 800 bytes: both queued frames fit now and leave, in order.
        List<PeerOutbox.Frame> out = o.acknowledged(800);
        out.forEach(f -> f.onWire().run());
        assertThat(wire).containsExactly(300L, 100L);
        assertThat(o.inKernel()).isEqualTo(400);
        assertThat(o.queuedBytes()).isZero();
        assertThat(o.maxQueuedBytes()).isEqualTo(400);
    }

    @Test
    void aReaderThatNeverReadsGrowsTheOutboxUntilItsBoundThenSendsAreDroppedUntilItDrains() {
        PeerOutbox o = new PeerOutbox(100, new PeerOutbox.Limits(4, 2, Long.MAX_VALUE, Long.MAX_VALUE));
        List<Long> wire = new ArrayList<>();
        assertThat(o.offer(frame(100, wire))).isEqualTo(PeerOutbox.Offer.WRITTEN);
        for (int i = 0; i < 4; i++) assertThat(o.offer(frame(100, wire))).isEqualTo(PeerOutbox.Offer.QUEUED);
        assertThat(o.offer(frame(100, wire))).isEqualTo(PeerOutbox.Offer.DROPPED);
        assertThat(o.dropped()).isEqualTo(1);
        // One frame leaves (3 queued): still above the low-water mark, so still dropping.
        assertThat(o.acknowledged(100)).hasSize(1);
        assertThat(o.offer(frame(100, wire))).isEqualTo(PeerOutbox.Offer.DROPPED);
        // Down to 2 queued: accepted again.
        assertThat(o.acknowledged(100)).hasSize(1);
        assertThat(o.offer(frame(100, wire))).isEqualTo(PeerOutbox.Offer.QUEUED);
        assertThat(o.dropped()).isEqualTo(2);
        assertThat(o.maxQueuedMessages()).isEqualTo(4);
    }

    @Test
    void aFrameLargerThanTheWindowGoesWhenTheWindowIsEmpty() {
        PeerOutbox o = new PeerOutbox(100, PeerOutbox.Limits.unbounded());
        List<Long> wire = new ArrayList<>();
        assertThat(o.offer(frame(500, wire))).isEqualTo(PeerOutbox.Offer.WRITTEN);
        assertThat(o.offer(frame(500, wire))).isEqualTo(PeerOutbox.Offer.QUEUED);
        assertThat(o.acknowledged(500)).hasSize(1);
    }

    @Test
    void noWindowMeansNothingEverWaits() {
        PeerOutbox o = new PeerOutbox(0, PeerOutbox.Limits.unbounded());
        List<Long> wire = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) assertThat(o.offer(frame(1 << 20, wire))).isEqualTo(PeerOutbox.Offer.WRITTEN);
        assertThat(o.queuedBytes()).isZero();
    }

    @Test
    void theNetworkSumsANodesOutboxesOverItsPeers() {
        NetworkModel net = new NetworkModel(Distribution.fixed(100), 0, new SplittableRandom(1));
        net.setWindow(100, PeerOutbox.Limits.unbounded(), new SplittableRandom(2));
        assertThat(net.windowed()).isTrue();
        List<Long> wire = new ArrayList<>();
        for (String peer : List.of("n2", "n3")) {
            net.outbox("n1", peer).offer(frame(100, wire));
            net.outbox("n1", peer).offer(frame(70, wire));
        }
        assertThat(net.outboxBytes("n1")).isEqualTo(140);
        assertThat(net.outboxBytes("n2")).isZero();
        net.setEgressDelay("n2", 5_000);
        assertThat(net.windowUpdateDelay("n2")).isEqualTo(5_100); // the reader's window update leaves through its delayed egress
    }
}
