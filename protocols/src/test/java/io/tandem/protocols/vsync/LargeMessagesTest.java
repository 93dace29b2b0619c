package io.tandem.protocols.vsync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.engine.RequestIds;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link LargeMessages} alone: the members of one shard moving large messages over a link that loses, duplicates and reorders. */
class LargeMessagesTest {
    private record Sent(NodeId from, NodeId to, VsyncMessage message) {}

    /** The components of one shard's members, and the messages in flight between them. */
    /**
     * One step of a lossy, duplicating, reordering network: now and then (or when nothing is in flight) every member
     * ticks; otherwise a random message in flight is lost (1 in 10), delivered twice (1 in 10) or delivered once.
     */
    private static void lossyStep(Shard shard, SplittableRandom random) {
        if (shard.inFlight.isEmpty() || random.nextInt(50) == 0) {
            for (LargeMessages p : shard.parts) p.tick();
            return;
        }
        Sent s = shard.inFlight.remove(random.nextInt(shard.inFlight.size()));
        int fate = random.nextInt(10);
        if (fate == 0) return; // lost
        shard.deliver(s);
        if (fate == 1) shard.deliver(s); // duplicated
    }

    private static final class Shard {
        final List<NodeId> members = new ArrayList<>();
        final List<LargeMessages> parts = new ArrayList<>();
        final List<Sent> inFlight = new ArrayList<>();

        Shard(int n, int blockBytes) {
            this(n, blockBytes, 1 << 20);
        }

        Shard(int n, int blockBytes, int maxBytes) {
            for (int i = 0; i < n; i++) members.add(NodeId.of("m" + i));
            for (int i = 0; i < n; i++) {
                NodeId me = members.get(i);
                parts.add(new LargeMessages(7, "kv", 0, members, i, blockBytes, maxBytes, (to, m) -> inFlight.add(new Sent(me, to, m))));
            }
        }

        void deliver(Sent s) {
            LargeMessages target = parts.get(members.indexOf(s.to()));
            switch (s.message()) {
                case VsyncMessage.RdmcReady r -> target.onReady(s.from(), r);
                case VsyncMessage.RdmcBlock b -> target.onBlock(s.from(), b);
                default -> throw new AssertionError(s.message());
            }
        }
    }

    private static byte[] bytes(int size, int seed) {
        byte[] b = new byte[size];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /**
     * Every member reads the header at a random moment (as the SST delivers it), messages arrive in
     * random order, 10 % are lost and 10 % duplicated; heartbeats repeat stalled asks. Every receiver
     * ends with the exact bytes, for groups of 2..9, messages of 1..2,000 bytes in blocks of 64.
     */
    @Test
    void everyReceiverGetsTheExactPayloadOverALossyLink() {
        for (int n = 2; n <= 9; n++) {
            for (int seed = 0; seed < 20; seed++) {
                SplittableRandom random = new SplittableRandom(n * 1000L + seed);
                Shard shard = new Shard(n, 64);
                int origin = random.nextInt(n);
                int size = 1 + random.nextInt(2000);
                byte[] message = bytes(size, seed);
                shard.parts.get(origin).send(5, message);
                boolean[] readHeader = new boolean[n];
                byte[][] got = new byte[n][];
                int rounds = 0;
                while (true) {
                    int done = 0;
                    for (int m = 0; m < n; m++) {
                        if (m == origin) continue;
                        if (!readHeader[m] && random.nextInt(4) == 0) readHeader[m] = true;
                        if (readHeader[m] && got[m] == null) got[m] = shard.parts.get(m).payload(origin, 5, size);
                        if (got[m] != null) done++;
                    }
                    if (done == n - 1) break;
                    assertThat(++rounds).as("n=%d seed=%d stalled", n, seed).isLessThan(20_000);
                    lossyStep(shard, random);
                }
                for (int m = 0; m < n; m++) if (m != origin) assertThat(got[m]).as("n=%d seed=%d member %d", n, seed, m).isEqualTo(message);
            }
        }
    }

    @Test
    void aSenderHasAtMostPipelineLargeMessagesThatSomeMemberDoesNotHold() {
        // Large messages of 2 MiB: PIPELINE at once, as in session 13 (bytes beyond PIPELINE_BYTES).
        Shard shard = new Shard(3, 1 << 20, 4 << 20);
        LargeMessages sender = shard.parts.get(1);
        int big = 2 << 20;
        assertThat(sender.senderFree(0, big)).isTrue();
        // Large messages 4, 6, 8, ... (small ones between them go by SMC).
        for (int i = 0; i < LargeMessages.PIPELINE; i++) {
            assertThat(sender.senderFree(4, big)).as("%d under way", i).isTrue();
            sender.send(4 + 2 * i, new byte[big]);
        }
        assertThat(sender.senderFree(4, big)).as("members hold messages 0..3 of mine, %d large ones after them are under way", LargeMessages.PIPELINE).isFalse();
        assertThat(sender.senderFree(4, 1000)).as("a small one does not fit the bytes either").isFalse();
        assertThat(sender.senderFree(5, big)).as("every member holds message 4").isTrue();
    }

    /** Small large messages: up to MAX_PIPELINE at once while they hold at most PIPELINE_BYTES (session 14). */
    @Test
    void aSenderHasUpToMaxPipelineSmallLargeMessagesUnheldBoundedByBytes() {
        Shard shard = new Shard(3, 64 << 10, 4 << 20);
        LargeMessages sender = shard.parts.get(0);
        int small = 64 << 10;
        for (int i = 0; i < LargeMessages.MAX_PIPELINE; i++) {
            assertThat(sender.senderFree(0, small)).as("%d under way", i).isTrue();
            sender.send(i, new byte[small]);
        }
        assertThat(sender.senderFree(0, small)).as("%d under way", LargeMessages.MAX_PIPELINE).isFalse();
        assertThat(sender.senderFree(1, small)).as("every member holds message 0").isTrue();
        int rest = (int) (LargeMessages.PIPELINE_BYTES - (LargeMessages.MAX_PIPELINE - 1) * (long) small);
        assertThat(sender.senderFree(1, rest)).as("exactly PIPELINE_BYTES with the new one").isTrue();
        assertThat(sender.senderFree(1, rest + 1)).as("one byte more than PIPELINE_BYTES").isFalse();
    }

    /**
     * What a member keeps: the newest MAX_PIPELINE transfers per sender when they are small, PIPELINE when they hold
     * more than PIPELINE_BYTES (the receive buffers a member holds per sender), and a transfer it has not completed
     * is never among those forgotten when the sender keeps to {@link LargeMessages#senderFree}.
     */
    @Test
    void aMemberKeepsMoreSmallTransfersThanLargeOnesAndNeverForgetsOneItNeeds() {
        for (int size : new int[] {1000, 3 << 20}) {
            Shard shard = new Shard(2, 1 << 20, 4 << 20);
            LargeMessages sender = shard.parts.get(0);
            LargeMessages receiver = shard.parts.get(1);
            long held = 0;
            for (long j = 0; j < 40; j++) {
                while (!sender.senderFree(held, size)) {
                    // Deliver until the receiver completes its oldest unheld message, which it then counts (held).
                    while (receiver.payload(0, held, size) == null) shard.deliver(shard.inFlight.removeFirst());
                    held++;
                }
                sender.send(j, bytes(size, (int) j));
                assertThat(receiver.payload(0, j, size)).isNull();
                int kept = receiver.describe().split("#").length - 1;
                assertThat(kept).as("size %d message %d", size, j).isLessThanOrEqualTo(size < 1 << 20 ? LargeMessages.MAX_PIPELINE : LargeMessages.PIPELINE);
            }
            while (held < 40) {
                byte[] got = receiver.payload(0, held, size);
                if (got == null) {
                    shard.deliver(shard.inFlight.removeFirst());
                    continue;
                }
                assertThat(got).isEqualTo(bytes(size, (int) held));
                held++;
            }
        }
    }

    /**
     * The hops per message at n = 2, counted in lock step (one round = one one-way hop): the header reaches the
     * receiver a round after the send, asks and blocks take a round each, and the receiver's count reaches the
     * sender a round after the payload completed. With PIPELINE (4) transfers per sender a message cost about a
     * round (four hops per transfer: header, ask, block, count; four at once); with 16 small ones, a quarter. Since
     * session 15 the block goes with the header, unasked: three hops per transfer, so with 4 at once about half a
     * round (1.01 before), and with 16 at most a quarter. A count of rounds, not a timing.
     */
    @Test
    void smallLargeMessagesCostAQuarterOfAHopEachAtTwoMembers() {
        double now = hopsPerMessage(false);
        double fourAtOnce = hopsPerMessage(true);
        System.out.printf("64 KiB at n = 2: %.2f one-way hops per message (session 13's rule of %d at once: %.2f)%n", now, LargeMessages.PIPELINE, fourAtOnce);
        assertThat(fourAtOnce).as("4 at once, no ask before the block").isLessThan(0.6);
        assertThat(now).isLessThan(0.3);
    }

    /** Rounds per message for 160 messages of 64 KiB; {@code onlyPipeline}: session 13's rule (fewer than PIPELINE unheld). */
    private static double hopsPerMessage(boolean onlyPipeline) {
        int messages = 160;
        int size = 64 << 10;
        Shard shard = new Shard(2, 1 << 20, 4 << 20);
        LargeMessages sender = shard.parts.get(0);
        LargeMessages receiver = shard.parts.get(1);
        long sent = 0;
        long counted = 0;
        long heldSeen = 0;
        List<Long> headers = new ArrayList<>();
        int rounds = 0;
        while (heldSeen < messages) {
            rounds++;
            List<Sent> now = new ArrayList<>(shard.inFlight);
            shard.inFlight.clear();
            for (Sent s : now) shard.deliver(s);
            for (Long j : headers) receiver.payload(0, j, size); // the headers pushed last round arrive (the receiver starts them)
            headers.clear();
            long countedBefore = counted;
            while (counted < sent && receiver.payload(0, counted, size) != null) counted++;
            heldSeen = Math.max(heldSeen, countedBefore); // the count pushed last round arrives
            while (sent < messages && sender.senderFree(heldSeen, size) && (!onlyPipeline || sent - heldSeen < LargeMessages.PIPELINE)) {
                sender.send(sent, new byte[size]);
                headers.add(sent++);
            }
            assertThat(rounds).isLessThan(10 * messages);
        }
        return rounds / (double) messages;
    }

    /**
     * Pipelining: the sender starts {@link LargeMessages#MAX_PIPELINE} small messages at once (indices with small
     * ones between them), each receiver reads their headers in ring order at random moments, and the
     * link loses 10 %, duplicates 10 % and reorders everything. Every receiver ends with every message's
     * exact bytes, and the transfers did overlap.
     */
    @Test
    void successiveLargeMessagesOverlapAndEachArrivesExactlyOverALossyLink() {
        long overlapped = 0;
        for (int n = 2; n <= 6; n++) {
            for (int seed = 0; seed < 20; seed++) {
                SplittableRandom random = new SplittableRandom(n * 7919L + seed);
                Shard shard = new Shard(n, 32);
                int origin = random.nextInt(n);
                int count = LargeMessages.MAX_PIPELINE;
                long[] index = new long[count];
                byte[][] message = new byte[count][];
                for (int i = 0; i < count; i++) {
                    index[i] = (i == 0 ? 0 : index[i - 1] + 1) + random.nextInt(3);
                    message[i] = bytes(1 + random.nextInt(400), seed * 31 + i);
                    shard.parts.get(origin).send(index[i], message[i]);
                }
                int[] headersRead = new int[n];
                byte[][][] got = new byte[n][count][];
                int rounds = 0;
                while (true) {
                    int done = 0;
                    for (int m = 0; m < n; m++) {
                        if (m == origin) continue;
                        if (headersRead[m] < count && random.nextInt(3) == 0) headersRead[m]++;
                        for (int i = 0; i < headersRead[m]; i++) {
                            if (got[m][i] == null) got[m][i] = shard.parts.get(m).payload(origin, index[i], message[i].length);
                            if (got[m][i] != null) done++;
                        }
                    }
                    if (done == (n - 1) * count) break;
                    assertThat(++rounds).as("n=%d seed=%d stalled", n, seed).isLessThan(50_000);
                    lossyStep(shard, random);
                }
                for (int m = 0; m < n; m++) {
                    if (m == origin) continue;
                    for (int i = 0; i < count; i++) assertThat(got[m][i]).as("n=%d seed=%d member %d message %d", n, seed, m, index[i]).isEqualTo(message[i]);
                    overlapped += shard.parts.get(m).overlapped;
                }
            }
        }
        assertThat(overlapped).as("transfers started while an earlier one of the same sender was under way").isPositive();
    }

    /**
     * Session 15: a receiver's first block goes without an ask. One-block messages to groups of 2-6 move without a
     * single {@code RdmcReady} on a link that loses nothing; every block here arrives before its receiver read the
     * header (kept, then used when the header comes, relays forwarding it then).
     */
    @Test
    void aOneBlockMessageMovesWithoutAskEvenWhenItsBlockComesBeforeTheHeader() {
        for (int n = 2; n <= 6; n++) {
            Shard shard = new Shard(n, 1 << 10);
            byte[] message = bytes(1000, n);
            shard.parts.getFirst().send(0, message);
            int asks = 0;
            long kept = 0;
            for (int round = 0; round < 3 * n; round++) {
                List<Sent> now = new ArrayList<>(shard.inFlight);
                shard.inFlight.clear();
                for (Sent s : now) {
                    if (s.message() instanceof VsyncMessage.RdmcReady) asks++;
                    shard.deliver(s);
                }
                // Headers are read only after the blocks of a round arrived, one more member per round.
                if (round + 1 < n) shard.parts.get(round + 1).payload(0, 0, message.length);
            }
            for (int m = 1; m < n; m++) {
                assertThat(shard.parts.get(m).payload(0, 0, message.length)).as("n=%d member %d", n, m).isEqualTo(message);
                kept += shard.parts.get(m).earlyBlocksKept;
            }
            assertThat(asks).as("n=%d", n).isZero();
            assertThat(kept).as("n=%d blocks that came before their header", n).isPositive();
        }
    }

    /**
     * Blocks that come before their header are kept within the bounds a sender keeping to {@link LargeMessages#senderFree}
     * stays in: at most MAX_PIPELINE per sender, at most max(PIPELINE_BYTES, PIPELINE blocks) of bytes; more is refused
     * (the receiver's repeated ask brings such a block again, as for a lost one).
     */
    @Test
    void blocksBeforeTheirHeaderAreKeptWithinTheSendersPipelineBounds() {
        Shard small = new Shard(2, 64 << 10, 4 << 20);
        LargeMessages receiver = small.parts.get(1);
        NodeId origin = small.members.getFirst();
        for (int j = 0; j < LargeMessages.MAX_PIPELINE + 4; j++) {
            receiver.onBlock(origin, new VsyncMessage.RdmcBlock(7, "kv", 0, 0, j, 0, 0, bytes(1000, j), RequestIds.BACKGROUND));
        }
        assertThat(receiver.earlyBlocksKept).isEqualTo(LargeMessages.MAX_PIPELINE);
        assertThat(receiver.refused).isEqualTo(4);
        for (int j = 0; j < LargeMessages.MAX_PIPELINE; j++) assertThat(receiver.payload(0, j, 1000)).as("message %d complete with its header", j).isEqualTo(bytes(1000, j));

        Shard large = new Shard(2, 1 << 20, 16 << 20);
        LargeMessages r = large.parts.get(1);
        for (int j = 0; j < 6; j++) r.onBlock(large.members.getFirst(), new VsyncMessage.RdmcBlock(7, "kv", 0, 0, j, 0, 0, new byte[1 << 20], RequestIds.BACKGROUND));
        assertThat(r.earlyBlocksKept).as("4 blocks of 1 MiB: PIPELINE_BYTES").isEqualTo(4);
        assertThat(r.refused).isEqualTo(2);
        // Blocks up to blockBytes / TAIL_FRACTION longer (1 MiB payloads with the channel's prefix are one such block
        // each, Session.blocksFor): PIPELINE of them are kept too, not PIPELINE - 1 (rdmc15).
        Shard prefixed = new Shard(2, 1 << 20, 16 << 20);
        LargeMessages p = prefixed.parts.get(1);
        int size = (1 << 20) + 40;
        for (int j = 0; j < 6; j++) p.onBlock(prefixed.members.getFirst(), new VsyncMessage.RdmcBlock(7, "kv", 0, 0, j, 0, 0, bytes(size, j), RequestIds.BACKGROUND));
        assertThat(p.earlyBlocksKept).as("PIPELINE blocks of 1 MiB + 40 bytes").isEqualTo(LargeMessages.PIPELINE);
        assertThat(p.refused).isEqualTo(2);
        for (int j = 0; j < LargeMessages.PIPELINE; j++) assertThat(p.payload(0, j, size)).as("message %d complete with its header", j).isEqualTo(bytes(size, j));
    }

    @Test
    void anAskThatComesBeforeTheHeaderIsKeptUntilTheTransferStarts() {
        Shard shard = new Shard(4, 8);
        byte[] message = bytes(40, 3);
        shard.parts.getFirst().send(0, message);
        // Members 1..3 read the header and ask; let every ask and block through, but member 2 reads the header last.
        shard.parts.get(1).payload(0, 0, 40);
        shard.parts.get(3).payload(0, 0, 40);
        for (int i = 0; i < 10_000 && !shard.inFlight.isEmpty(); i++) {
            Sent s = shard.inFlight.removeFirst();
            shard.deliver(s);
            if (i == 3) shard.parts.get(2).payload(0, 0, 40);
        }
        for (int m = 1; m < 4; m++) assertThat(shard.parts.get(m).payload(0, 0, 40)).as("member %d", m).isEqualTo(message);
    }

    @Test
    void wireInputThatFitsNoTransferIsRefusedWithoutAnException() {
        Shard shard = new Shard(3, 16);
        LargeMessages p = shard.parts.get(1);
        p.onReady(NodeId.of("stranger"), new VsyncMessage.RdmcReady(7, "kv", 0, 0, 0, 0, RequestIds.BACKGROUND));
        p.onReady(shard.members.get(0), new VsyncMessage.RdmcReady(7, "kv", 0, 9, 0, 0, RequestIds.BACKGROUND));
        // A block of a transfer not started here is kept as a first block that came before its header (session 15);
        // a second copy of it is refused.
        p.onBlock(shard.members.get(0), new VsyncMessage.RdmcBlock(7, "kv", 0, 0, 3, 0, 0, new byte[16], RequestIds.BACKGROUND));
        assertThat(p.earlyBlocksKept).isEqualTo(1);
        p.onBlock(shard.members.get(0), new VsyncMessage.RdmcBlock(7, "kv", 0, 0, 3, 0, 0, new byte[16], RequestIds.BACKGROUND));
        p.onBlock(shard.members.get(0), new VsyncMessage.RdmcBlock(7, "kv", 0, -1, 3, 0, 0, new byte[16], RequestIds.BACKGROUND));
        assertThat(p.refused).isEqualTo(4);
        // A block of the right transfer but the wrong step or length is refused by the session.
        p.payload(0, 0, 40);
        p.onBlock(shard.members.get(0), new VsyncMessage.RdmcBlock(7, "kv", 0, 0, 0, 5, 1, new byte[16], RequestIds.BACKGROUND));
        p.onBlock(shard.members.get(0), new VsyncMessage.RdmcBlock(7, "kv", 0, 0, 0, 0, 0, new byte[3], RequestIds.BACKGROUND));
        assertThat(p.refused).isEqualTo(6);
        assertThat(p.payload(0, 0, 40)).isNull();
    }

    /**
     * Blocks go from the sender's message buffer to the wire as slices (no copied array) and arrive whole
     * through the codec; a frame whose block does not hold the bytes it declares decodes to a block with
     * no data (a value, not a codec exception), which the receiver refuses.
     */
    @Test
    void blocksCrossTheCodecAsSlicesAndABadLengthIsABlockWithoutData() {
        io.tandem.codec.KryoCodec.Builder builder = io.tandem.codec.KryoCodec.builder();
        VsyncMessage.register(builder);
        io.tandem.codec.KryoCodec codec = builder.maxEncodedBytes(4 << 20).build();
        int blockBytes = 100_000; // above the codec's threshold for an exact-size array
        Shard shard = new Shard(3, blockBytes);
        byte[] message = bytes(3 * blockBytes + 17_000, 5); // a last block of its own: longer than blockBytes / Session.TAIL_FRACTION
        shard.parts.get(0).send(0, message);
        for (int m = 1; m < 3; m++) shard.parts.get(m).payload(0, 0, message.length);
        int slices = 0;
        byte[] sample = null;
        for (int i = 0; i < 1000 && !shard.inFlight.isEmpty(); i++) {
            Sent s = shard.inFlight.removeFirst();
            if (s.message() instanceof VsyncMessage.RdmcBlock b && b.data() == message) {
                slices++;
                if (b.offset() > 0) sample = codec.encode(b);
            }
            shard.deliver(new Sent(s.from(), s.to(), (VsyncMessage) codec.decode(codec.encode(s.message()))));
        }
        assertThat(slices).as("blocks the sender sent straight from its message").isGreaterThanOrEqualTo(4);
        for (int m = 1; m < 3; m++) assertThat(shard.parts.get(m).payload(0, 0, message.length)).as("member %d", m).isEqualTo(message);

        // The block's length is the 4 bytes before its data, at the end of the frame.
        assertThat(sample).isNotNull();
        var good = (VsyncMessage.RdmcBlock) codec.decode(sample);
        int at = sample.length - good.length() - 4;
        for (int bad : new int[] {good.length() + 1, -2, Integer.MAX_VALUE}) {
            byte[] wire = sample.clone();
            java.nio.ByteBuffer.wrap(wire).putInt(at, bad); // Kryo's writeInt is big-endian
            var decoded = (VsyncMessage.RdmcBlock) codec.decode(wire);
            assertThat(decoded.data()).as("length %d", bad).isNull();
            assertThat(decoded.index()).isEqualTo(good.index());
        }
        var truncated = (VsyncMessage.RdmcBlock) codec.decode(java.util.Arrays.copyOf(sample, sample.length - 1));
        assertThat(truncated.data()).isNull();
        var headerOnly = (VsyncMessage.RdmcBlock) codec.decode(java.util.Arrays.copyOf(sample, 10));
        assertThat(headerOnly.data()).isNull();

        Shard other = new Shard(3, blockBytes);
        LargeMessages receiver = other.parts.get(1);
        receiver.payload(0, 0, message.length);
        receiver.onBlock(other.members.get(0), truncated);
        assertThat(receiver.refused).isEqualTo(1);
        assertThat(receiver.payload(0, 0, message.length)).isNull();
    }

    /**
     * The TCP transport's path (session 14): a block goes out as its encoded head and its bytes taken from the
     * message buffer ({@code encodeHead}), and arrives in a frame array of its own, which the decoded block keeps
     * ({@code decodeOwned}); the member then forwards blocks that are slices of that array's copy in its buffer.
     */
    @Test
    void blocksCrossTheTransportPathAsHeadAndSliceAndStayInTheirOwnFrame() {
        io.tandem.codec.KryoCodec.Builder builder = io.tandem.codec.KryoCodec.builder();
        VsyncMessage.register(builder);
        io.tandem.codec.KryoCodec codec = builder.maxEncodedBytes(4 << 20).build();
        int blockBytes = 100_000;
        Shard shard = new Shard(4, blockBytes);
        byte[] message = bytes(5 * blockBytes + 33_000, 6); // a last block of its own (longer than blockBytes / Session.TAIL_FRACTION)
        shard.parts.get(0).send(0, message);
        for (int m = 1; m < 4; m++) shard.parts.get(m).payload(0, 0, message.length);
        int kept = 0;
        byte[] sample = null;
        for (int i = 0; i < 5000 && !shard.inFlight.isEmpty(); i++) {
            Sent s = shard.inFlight.removeFirst();
            VsyncMessage arrived;
            if (s.message() instanceof VsyncMessage.RdmcBlock b && b.data() != null) {
                var head = codec.encodeHead(b);
                assertThat(head.tail()).as("the block's bytes are not copied to encode it").isSameAs(b.data());
                byte[] frame = java.util.Arrays.copyOf(head.head(), (int) head.totalBytes());
                System.arraycopy(head.tail(), head.offset(), frame, head.head().length, head.length());
                assertThat(frame).isEqualTo(codec.encode(b));
                var back = (VsyncMessage.RdmcBlock) codec.decodeOwned(frame, 0, frame.length);
                assertThat(back.data()).as("kept in its frame").isSameAs(frame);
                kept++;
                if (sample == null) sample = frame;
                arrived = back;
            } else {
                arrived = (VsyncMessage) codec.decode(codec.encode(s.message()));
            }
            shard.deliver(new Sent(s.from(), s.to(), arrived));
        }
        assertThat(kept).as("blocks moved (6 blocks to each of 3 receivers)").isGreaterThanOrEqualTo(18);
        for (int m = 1; m < 4; m++) assertThat(shard.parts.get(m).payload(0, 0, message.length)).as("member %d", m).isEqualTo(message);

        // A bad length in an owned frame is still a block without data, not a slice past the frame.
        var good = (VsyncMessage.RdmcBlock) codec.decode(sample);
        int at = sample.length - good.length() - 4;
        for (int bad : new int[] {good.length() + 1, -2, Integer.MAX_VALUE}) {
            byte[] wire = sample.clone();
            java.nio.ByteBuffer.wrap(wire).putInt(at, bad);
            assertThat(((VsyncMessage.RdmcBlock) codec.decodeOwned(wire, 0, wire.length)).data()).as("length %d", bad).isNull();
        }
        byte[] cut = java.util.Arrays.copyOf(sample, sample.length - 1);
        assertThat(((VsyncMessage.RdmcBlock) codec.decodeOwned(cut, 0, cut.length)).data()).isNull();
    }

    @Test
    void theConfigRefusesALargeMessageLimitThatCannotWork() {
        VsyncConfig d = VsyncConfig.DEFAULTS;
        assertThat(d.smcPayloadBytes()).isEqualTo(512 - VsyncConfig.SLOT_HEADER);
        assertThat(d.isLarge(464)).isFalse();
        assertThat(d.isLarge(465)).isTrue();
        assertThat(d.withLargeMessages(100, 1000, 64).isLarge(101)).isTrue();
        assertThatThrownBy(() -> d.withLargeMessages(465, 1 << 20, 1024)).hasMessageContaining("maxSmcPayloadBytes must be in [0, 464]");
        assertThatThrownBy(() -> d.withLargeMessages(0, 464, 1024)).hasMessageContaining("must exceed the SMC threshold of 464");
        assertThatThrownBy(() -> d.withLargeMessages(0, 1 << 20, 0)).hasMessageContaining("rdmcBlockBytes");
        assertThatThrownBy(() -> d.withLargeMessages(0, Integer.MAX_VALUE, 1)).hasMessageContaining("2^20 blocks");
        assertThat(d.withLargeMessages(0, 0, 1024).maxPayloadBytes()).as("large messages off").isEqualTo(464);
    }
}
