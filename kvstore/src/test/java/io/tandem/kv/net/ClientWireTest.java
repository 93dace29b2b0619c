package io.tandem.kv.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import io.tandem.transport.FaultPlan;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class ClientWireTest {
    static List<Request> sampleRequests() {
        FaultPlan plan = FaultPlan.NONE.partition(Set.of(NodeId.of("n1")), Set.of(NodeId.of("n2"), NodeId.of("n3")))
                .withDelay(Duration.ofMillis(5), Duration.ofMillis(2)).withLoss(0.1).withDuplication(0.01).withReordering(0.5)
                .withSlowNode(NodeId.of("n3"), Duration.ofMillis(400));
        return List.of(
                new Request.Command(1, 0, 0, new byte[] {1, 2, 3}),
                new Request.Command(Long.MAX_VALUE, -7, 42, new byte[0]),
                new Request.Query(2, ReadPolicy.LINEARIZABLE, new byte[] {9}),
                new Request.Query(3, ReadPolicy.LEASE, new byte[0]),
                new Request.Query(4, ReadPolicy.stale(123), new byte[100_000]),
                new Request.Status(5),
                new Request.SetFaultPlan(6, FaultPlan.NONE),
                new Request.SetFaultPlan(7, plan),
                new Request.SetClockOffset(8, -1_500_000_000L),
                new Request.ChangeMembership(9, MembershipChange.ADD_LEARNER, "n4"),
                new Request.ChangeMembership(10, MembershipChange.TRANSFER_LEADERSHIP, "n2"));
    }

    static List<Response> sampleResponses() {
        NodeStatus status = new NodeStatus("n1", "local", "raft", "LEADER", "n1", "127.0.0.1:8001", 3, 100, 99, List.of("n1", "n2"), List.of("n3"),
                Map.of("n2", 0L, "n3", 42L), 4242, 12_345, true,
                List.of(new NodeStatus.Member("n1", "127.0.0.1:7001", "127.0.0.1:8001"), new NodeStatus.Member("n2", "h:7002", "h:8002")));
        NodeStatus bare = new NodeStatus("n2", "c", "toy-pb", "UNKNOWN", null, null, -1, -1, 0, List.of(), List.of(), Map.of(), 1, 0, false, List.of());
        NodeStatus sharded = new NodeStatus("n3", "c", "virtual-synchrony", "FOLLOWER", "n1", null, 7, 0, 0, List.of("n1", "n2", "n3"), List.of(), Map.of(), 2, 5, false,
                List.of(new NodeStatus.Member("n1", "h:7001", "h:8001")), 7, List.of(List.of("n1", "n3"), List.of("n2")));
        return List.of(
                new Response.StatusReport(9, sharded),
                new Response.Result(1, new byte[] {1, 2}),
                new Response.Result(2, new byte[0]),
                new Response.StatusReport(3, status),
                new Response.StatusReport(4, bare),
                new Response.Done(5),
                new Response.Error(6, ErrorCode.NOT_LEADER, "n1 is not the leader; try n2", "n2", "127.0.0.1:8002"),
                new Response.Error(7, ErrorCode.NOT_LEADER, "no leader known"),
                new Response.Error(8, ErrorCode.TIMEOUT, "x", null, "only-address:1"));
    }

    private static byte[] encode(Request r) {
        ByteBuf b = Unpooled.buffer();
        ClientWire.writeRequest(r, b);
        return bytes(b);
    }

    private static byte[] encode(Response r) {
        ByteBuf b = Unpooled.buffer();
        ClientWire.writeResponse(r, b);
        return bytes(b);
    }

    private static byte[] bodyOf(Request r) {
        byte[] f = encode(r);
        return Arrays.copyOfRange(f, 4, f.length);
    }

    private static byte[] bodyOf(Response r) {
        byte[] f = encode(r);
        return Arrays.copyOfRange(f, 4, f.length);
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    /** The body of a frame: what the frame decoder hands on, without the length prefix. */
    private static ByteBuf body(byte[] frame) {
        assertThat(frame.length).isGreaterThanOrEqualTo(4);
        int length = Unpooled.wrappedBuffer(frame).getInt(0);
        assertThat(length).isEqualTo(frame.length - 4);
        return Unpooled.wrappedBuffer(frame, 4, frame.length - 4);
    }

    @Test
    void everyRequestRoundTrips() {
        for (Request r : sampleRequests()) {
            byte[] frame = encode(r);
            Request back = ClientWire.readRequest(body(frame));
            assertThat(back.getClass()).isEqualTo(r.getClass());
            assertThat(back.requestId()).isEqualTo(r.requestId());
            assertThat(encode(back)).as("%s", r).isEqualTo(frame);
            assertThat(ClientWire.sizeHint(r)).isGreaterThanOrEqualTo(frame.length);
        }
        Request.SetFaultPlan p = (Request.SetFaultPlan) ClientWire.readRequest(body(encode(sampleRequests().get(7))));
        assertThat(p.plan()).isEqualTo(((Request.SetFaultPlan) sampleRequests().get(7)).plan());
        Request.Query q = (Request.Query) ClientWire.readRequest(body(encode(sampleRequests().get(4))));
        assertThat(q.policy()).isEqualTo(ReadPolicy.stale(123));
    }

    @Test
    void everyResponseRoundTrips() {
        for (Response r : sampleResponses()) {
            byte[] frame = encode(r);
            Response back = ClientWire.readResponse(body(frame));
            assertThat(back.getClass()).isEqualTo(r.getClass());
            assertThat(encode(back)).as("%s", r).isEqualTo(frame);
            assertThat(ClientWire.sizeHint(r)).isGreaterThanOrEqualTo(frame.length);
            if (r instanceof Response.StatusReport s) assertThat(((Response.StatusReport) back).status()).isEqualTo(s.status());
            if (r instanceof Response.Error e) assertThat(back).isEqualTo(e);
        }
    }

    @Test
    void pinnedLayoutOfACommand() {
        byte[] frame = encode(new Request.Command(0x0102, 3, 4, new byte[] {(byte) 0xAA}));
        assertThat(frame).containsExactly(
                0, 0, 0, 31,                    // body length
                2, 1,                            // version, COMMAND
                0, 0, 0, 0, 0, 0, 1, 2,          // request id
                0, 0, 0, 0, 0, 0, 0, 3,          // client id
                0, 0, 0, 0, 0, 0, 0, 4,          // sequence
                0, 0, 0, 1, (byte) 0xAA);        // command bytes
    }

    @Test
    void everyTruncationIsRefusedWithAWireFormatException() {
        for (Request r : sampleRequests()) {
            byte[] frame = encode(r);
            for (int cut = 4; cut < frame.length; cut++) {
                ByteBuf body = Unpooled.wrappedBuffer(frame, 4, cut - 4);
                assertThatThrownBy(() -> ClientWire.readRequest(body)).as("%s cut at %d", r, cut).isInstanceOf(WireFormatException.class);
            }
        }
        for (Response r : sampleResponses()) {
            byte[] frame = encode(r);
            for (int cut = 4; cut < frame.length; cut++) {
                ByteBuf body = Unpooled.wrappedBuffer(frame, 4, cut - 4);
                assertThatThrownBy(() -> ClientWire.readResponse(body)).as("%s cut at %d", r, cut).isInstanceOf(WireFormatException.class);
            }
        }
    }

    @Test
    void malformedBodiesAreRefused() {
        byte[] status = bodyOf(new Request.Status(77));
        assertRefused(mutate(status, b -> b[0] = 1), "unsupported client protocol version 1");
        assertThat(versionMismatch(mutate(status, b -> b[0] = 9))).isTrue();
        assertRefused(mutate(status, b -> b[1] = 99), "unknown request type 99");
        assertRefused(concat(status, new byte[] {0}), "1 trailing bytes");
        assertRefused(new byte[] {1}, "shorter than a header");

        byte[] query = bodyOf(new Request.Query(1, ReadPolicy.LEASE, new byte[] {5}));
        assertRefused(mutate(query, b -> b[10] = 7), "unknown read policy 7");
        byte[] lying = mutate(query, b -> { // query length claims more than is there
            b[11] = 0x7F;
        });
        assertRefused(lying, "exceeds");
        byte[] negative = mutate(query, b -> b[11] = (byte) 0xFF);
        assertRefused(negative, "exceeds");
        byte[] stale = bodyOf(new Request.Query(1, ReadPolicy.stale(1), new byte[0]));
        assertRefused(mutate(stale, b -> b[11] = (byte) 0x80), "negative min index");

        byte[] change = bodyOf(new Request.ChangeMembership(1, MembershipChange.PROMOTE, "n4"));
        assertRefused(mutate(change, b -> b[10] = 9), "unknown membership change 9");

        byte[] plan = bodyOf(new Request.SetFaultPlan(1, FaultPlan.NONE.withLoss(0.5)));
        int lossAt = 10 + 2 + 8 + 8; // no links, delay, jitter
        assertRefused(mutate(plan, b -> b[lossAt] = 0x7F), "invalid fault plan"); // a loss rate far above 1

        byte[] error = bodyOf(new Response.Error(1, ErrorCode.TIMEOUT, "m"));
        int flagsAt = error.length - 1;
        assertThatThrownBy(() -> ClientWire.readResponse(Unpooled.wrappedBuffer(mutate(error, b -> b[flagsAt] = 4))))
                .isInstanceOf(WireFormatException.class).hasMessageContaining("unknown bits");
    }

    @Test
    void unknownErrorCodesReadAsInternal() {
        byte[] error = bodyOf(new Response.Error(1, ErrorCode.TIMEOUT, "m"));
        Response r = ClientWire.readResponse(Unpooled.wrappedBuffer(mutate(error, b -> b[11] = 99)));
        assertThat(((Response.Error) r).code()).isEqualTo(ErrorCode.INTERNAL);
    }

    @Test
    void peekRequestIdFindsTheIdOfAnUndecodableFrame() {
        byte[] body = bodyOf(new Request.Status(0x55AA));
        body[1] = 123;
        assertThat(ClientWire.peekRequestId(Unpooled.wrappedBuffer(body))).isEqualTo(0x55AA);
        assertThat(ClientWire.peekRequestId(Unpooled.wrappedBuffer(new byte[3]))).isZero();
    }

    @Test
    void randomAndMutatedBodiesOnlyEverDecodeOrThrowWireFormatException() {
        Random random = new Random(7);
        List<byte[]> valid = new java.util.ArrayList<>();
        for (Request r : sampleRequests()) valid.add(Arrays.copyOfRange(encode(r), 4, encode(r).length));
        for (Response r : sampleResponses()) valid.add(Arrays.copyOfRange(encode(r), 4, encode(r).length));
        for (int i = 0; i < 30_000; i++) {
            byte[] b;
            if (i % 3 == 0) {
                b = new byte[random.nextInt(40)];
                random.nextBytes(b);
                if (b.length > 0) b[0] = 1;
            } else {
                b = valid.get(random.nextInt(valid.size())).clone();
                if (b.length > 4096) b = Arrays.copyOf(b, 4096);
                for (int flips = 1 + random.nextInt(3); flips > 0; flips--) b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
            }
            byte[] input = b;
            decodesOrRefuses(() -> ClientWire.readRequest(Unpooled.wrappedBuffer(input)));
            decodesOrRefuses(() -> ClientWire.readResponse(Unpooled.wrappedBuffer(input)));
        }
    }

    private static void decodesOrRefuses(Runnable decode) {
        try {
            decode.run();
        } catch (WireFormatException expected) {
            // refused: fine
        }
    }

    private static boolean versionMismatch(byte[] body) {
        try {
            ClientWire.readRequest(Unpooled.wrappedBuffer(body));
            return false;
        } catch (WireFormatException e) {
            return e.versionMismatch();
        }
    }

    private static void assertRefused(byte[] body, String message) {
        assertThatThrownBy(() -> ClientWire.readRequest(Unpooled.wrappedBuffer(body))).isInstanceOf(WireFormatException.class).hasMessageContaining(message);
    }

    private static byte[] mutate(byte[] b, Consumer<byte[]> change) {
        byte[] copy = b.clone();
        change.accept(copy);
        return copy;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }


    @Test
    void aResultWrittenStraightIntoTheFrameHasTheBytesOfTheEncodedResponse() {
        // What the leader writes for its client's put (issue 25) against what it wrote before: the encoded result.
        io.tandem.kv.KvCodec codec = new io.tandem.kv.KvCodec(io.tandem.kv.KvLimits.DEFAULTS);
        Random random = new Random(25);
        List<io.tandem.kv.KvResult> results = new java.util.ArrayList<>(List.of(new io.tandem.kv.KvResult.NotFound(),
                new io.tandem.kv.KvResult.CasSucceeded(), new io.tandem.kv.KvResult.CasFailed(null), new io.tandem.kv.KvResult.CasFailed(new byte[] {1}),
                new io.tandem.kv.KvResult.Failed(io.tandem.kv.KvException.Reason.MALFORMED, "too large: é"),
                new io.tandem.kv.KvResult.Page(List.of(new io.tandem.kv.btree.Entry(new byte[] {1}, new byte[] {2})), null)));
        // Values around each varint length boundary and random ones.
        for (int size : new int[] {0, 1, 63, 64, 127, 128, 129, 16_383, 16_384, 70_000}) results.add(new io.tandem.kv.KvResult.Found(new byte[size]));
        for (int i = 0; i < 200; i++) {
            byte[] v = new byte[random.nextInt(300)];
            random.nextBytes(v);
            results.add(new io.tandem.kv.KvResult.Found(v));
        }
        for (io.tandem.kv.KvResult r : results) {
            long id = random.nextLong();
            ByteBuf b = Unpooled.buffer(ClientWire.resultSizeHint(r));
            ClientWire.writeResult(id, r, b);
            assertThat(bytes(b)).as("%s", r).isEqualTo(encode(new Response.Result(id, codec.encode(r))));
        }
    }
}
