package io.tandem.sim.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The transport's per-syscall costs (issue 18, session 14): one flush per drain of a link and one read per read turn of a
 * link, shared by the frames coalesced into them; and the table's client costs, which pay both per request. No timing.
 */
class FrameCoalescingTest {
    private final FrameCoalescing frames = new FrameCoalescing();

    @Test
    void sendsQueuedBeforeTheDrainStartsShareItsFlush() {
        assertThat(frames.sendQueued("n1", "n2")).isTrue();
        assertThat(frames.sendQueued("n1", "n2")).isFalse();
        assertThat(frames.sendQueued("n1", "n2")).isFalse();
        frames.flushStarted("n1", "n2");
        // The drain has begun: a send after it needs a flush of its own.
        assertThat(frames.sendQueued("n1", "n2")).isTrue();
        assertThat(frames.sends()).isEqualTo(4);
        assertThat(frames.flushes()).isEqualTo(2);
    }

    @Test
    void eachLinkHasItsOwnFlushAndDirection() {
        assertThat(frames.sendQueued("n1", "n2")).isTrue();
        assertThat(frames.sendQueued("n1", "n3")).isTrue(); // another peer: another socket, another write
        assertThat(frames.sendQueued("n2", "n1")).isTrue(); // the other direction: the other node's I/O thread
        assertThat(frames.flushes()).isEqualTo(3);
        frames.flushStarted("n1", "n3");
        assertThat(frames.sendQueued("n1", "n2")).isFalse();
        assertThat(frames.sendQueued("n1", "n3")).isTrue();
    }

    @Test
    void framesArrivingBeforeTheReadStartsShareIt() {
        assertThat(frames.frameArrived("n1", "n2")).isTrue();
        assertThat(frames.frameArrived("n1", "n2")).isFalse();
        assertThat(frames.frameArrived("n3", "n2")).isTrue(); // another connection
        frames.readStarted("n1", "n2");
        assertThat(frames.frameArrived("n1", "n2")).isTrue();
        assertThat(frames.receives()).isEqualTo(4);
        assertThat(frames.reads()).isEqualTo(3);
    }

    @Test
    void sendsAndReadsAreCountedApart() {
        frames.sendQueued("n1", "n2");
        assertThat(frames.frameArrived("n1", "n2")).isTrue(); // the receiver's read is not the sender's flush
        assertThat(frames.flushes()).isEqualTo(1);
        assertThat(frames.reads()).isEqualTo(1);
    }

    private static CostTable table(Map<String, String> extra) {
        Map<String, String> v = new HashMap<>(Map.of("disk.fsync", "1000", "net.oneway", "1000", "client.request.ns", "400", "client.reply.ns", "300",
                "client.op.ns", "800", "transport.send.ns", "200", "transport.receive.ns", "250"));
        v.putAll(extra);
        return CostTable.of(v);
    }

    @Test
    void withoutPerSyscallKeysTheClientCostsAreTheTablesAsBefore() {
        CostTable t = table(Map.of());
        assertThat(t.coalescesFrames()).isFalse();
        assertThat(t.clientRequestCost()).isEqualTo(400);
        assertThat(t.clientReplyCost()).isEqualTo(300);
        assertThat(t.clientOpCost()).isEqualTo(800);
        assertThat(t.sendCost(0)).isEqualTo(200);
    }

    @Test
    void aClientRequestAndItsReplyPayAReadAndAFlushOnEachSide() {
        CostTable t = table(Map.of("transport.flush.ns", "3000", "transport.read.ns", "2000"));
        assertThat(t.coalescesFrames()).isTrue();
        assertThat(t.clientRequestCost()).isEqualTo(400 + 2000);
        assertThat(t.clientReplyCost()).isEqualTo(300 + 3000);
        assertThat(t.clientOpCost()).isEqualTo(800 + 3000 + 2000); // the load generator flushes the request, reads the reply
        assertThat(t.sendCost(0)).isEqualTo(200); // per message, the flush apart
        assertThat(t.receiveCost(0)).isEqualTo(250);
    }
}
