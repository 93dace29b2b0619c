package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.codec.BinarySerializer;
import io.tandem.codec.CodecException;
import io.tandem.codec.Decoded;
import io.tandem.codec.KryoCodec;
import io.tandem.storage.LogEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hand-written Raft encodings: exact round trips, and malformed bytes rejected with a reason, never an exception. */
class RaftWireTest {
    private static final RaftWire.AppendEntriesSerializer APPEND = new RaftWire.AppendEntriesSerializer();
    private static final RaftWire.AppendEntriesResponseSerializer RESPONSE = new RaftWire.AppendEntriesResponseSerializer();

    private static RaftMessage.AppendEntries append(int entries, int payloadBytes) {
        List<LogEntry> list = new ArrayList<>();
        for (int i = 0; i < entries; i++) {
            byte[] payload = new byte[payloadBytes];
            Arrays.fill(payload, (byte) i);
            list.add(new LogEntry(41 + i, i == 0 ? 6 : 7, payload));
        }
        return new RaftMessage.AppendEntries(7, 40, 6, list, 39, 123_456_789L);
    }

    private static <T> T decoded(BinarySerializer<T> s, byte[] bytes) {
        Decoded<T> d = s.decode(bytes);
        assertThat(d).isInstanceOf(Decoded.Ok.class);
        return ((Decoded.Ok<T>) d).value();
    }

    private static String rejection(BinarySerializer<?> s, byte[] bytes) {
        Decoded<?> d = s.decode(bytes);
        assertThat(d).as("decoding %s", Arrays.toString(bytes)).isInstanceOf(Decoded.Rejected.class);
        return ((Decoded.Rejected<?>) d).reason();
    }

    private static void assertSame(RaftMessage.AppendEntries a, RaftMessage.AppendEntries b) {
        assertThat(b.term()).isEqualTo(a.term());
        assertThat(b.prevLogIndex()).isEqualTo(a.prevLogIndex());
        assertThat(b.prevLogTerm()).isEqualTo(a.prevLogTerm());
        assertThat(b.leaderCommit()).isEqualTo(a.leaderCommit());
        assertThat(b.requestId()).isEqualTo(a.requestId());
        assertThat(b.entries()).hasSameSizeAs(a.entries());
        for (int i = 0; i < a.entries().size(); i++) {
            assertThat(b.entries().get(i).index()).isEqualTo(a.entries().get(i).index());
            assertThat(b.entries().get(i).term()).isEqualTo(a.entries().get(i).term());
            assertThat(b.entries().get(i).payload()).isEqualTo(a.entries().get(i).payload());
        }
    }

    @Test
    void appendEntriesRoundTripsAtEverySize() {
        for (int[] shape : new int[][] {{0, 0}, {1, 0}, {1, 64}, {16, 64}, {3, 1024}, {1, 70_000}}) {
            RaftMessage.AppendEntries m = append(shape[0], shape[1]);
            assertSame(m, decoded(APPEND, APPEND.encode(m)));
        }
        // Entries that do not follow prevLogIndex one by one still round-trip (the index delta).
        var gaps = new RaftMessage.AppendEntries(3, 10, 2, List.of(new LogEntry(12, 3, new byte[] {1}), new LogEntry(20, 3, new byte[0])), 0, -1);
        assertSame(gaps, decoded(APPEND, APPEND.encode(gaps)));
    }

    @Test
    void smallMessagesRoundTripExactly() {
        for (var r : List.of(new RaftMessage.AppendEntriesResponse(9, true, 1_000_000, 999_999, 0, 0, 77),
                new RaftMessage.AppendEntriesResponse(9, false, 0, 50, 4, 31, 0))) {
            assertThat(decoded(RESPONSE, RESPONSE.encode(r))).isEqualTo(r);
        }
        var hb = new RaftMessage.Heartbeat(4, 100, 55, 0);
        assertThat(decoded(new RaftWire.HeartbeatSerializer(), new RaftWire.HeartbeatSerializer().encode(hb))).isEqualTo(hb);
        var hbr = new RaftMessage.HeartbeatResponse(4, 55, 0);
        assertThat(decoded(new RaftWire.HeartbeatResponseSerializer(), new RaftWire.HeartbeatResponseSerializer().encode(hbr))).isEqualTo(hbr);
    }

    @Test
    void everyTruncationIsRejectedWithAReason() {
        byte[] full = APPEND.encode(append(3, 10));
        for (int n = 0; n < full.length; n++) {
            assertThat(rejection(APPEND, Arrays.copyOf(full, n))).startsWith("AppendEntries: ");
        }
        byte[] response = RESPONSE.encode(new RaftMessage.AppendEntriesResponse(9, true, 300, 299, 0, 0, 77));
        for (int n = 0; n < response.length; n++) assertThat(rejection(RESPONSE, Arrays.copyOf(response, n))).startsWith("AppendEntriesResponse: ");
    }

    @Test
    void trailingBytesAreRejected() {
        byte[] full = APPEND.encode(append(1, 4));
        assertThat(rejection(APPEND, Arrays.copyOf(full, full.length + 1))).contains("1 trailing bytes");
    }

    @Test
    void hostileCountsAndLengthsAreRefusedBeforeAllocating() {
        // term 1, prev 0/0, commit 0, request 0, then a count of 2^31-1 entries in a 10-byte message.
        byte[] count = {1, 0, 0, 0, 0, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07};
        assertThat(rejection(APPEND, count)).contains("entries claims 2147483647 items");
        // one entry whose payload claims 1 GiB
        byte[] length = {1, 0, 0, 0, 0, 1, 0, 1, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x04};
        assertThat(rejection(APPEND, length)).contains("entry payload claims 1073741824 bytes");
    }

    @Test
    void invalidFieldsAreRejectedWithTheirName() {
        // an entry at index 0 (the delta -1 from prevLogIndex 0): zig-zag 1 is -1
        byte[] indexZero = {1, 0, 0, 0, 0, 1, 1, 1, 0};
        assertThat(rejection(APPEND, indexZero)).contains("has index 0");
        // an entry whose term is above the leader's
        byte[] futureTerm = {1, 0, 0, 0, 0, 1, 0, 2, 0};
        assertThat(rejection(APPEND, futureTerm)).contains("term 2 above the message's term 1");
        // success must be 0 or 1
        byte[] response = RESPONSE.encode(new RaftMessage.AppendEntriesResponse(9, true, 300, 299, 0, 0, 77));
        response[1] = 5;
        assertThat(rejection(RESPONSE, response)).contains("success is 5");
        // a negative var-long where a term must be
        byte[] negative = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x01};
        assertThat(rejection(new RaftWire.HeartbeatSerializer(), negative)).contains("term is negative");
    }

    @Test
    void commandEntriesKeepTheirLoggedFormatByteForByte() throws java.io.IOException {
        for (var c : List.of(new EntryPayload.Command(io.tandem.engine.NodeId.of("node-7"), 42, new io.tandem.engine.ClientRequest.Session(-5, 9, 3), new byte[] {1, 2, 3}),
                new EntryPayload.Command(null, 0, io.tandem.engine.ClientRequest.Session.NONE, new byte[0]))) {
            // The format logs written before the direct encoder hold: DataOutputStream's writeUTF and big-endian longs.
            var reference = new java.io.ByteArrayOutputStream();
            try (var out = new java.io.DataOutputStream(reference)) {
                out.writeByte(EntryPayload.COMMAND_WITH_WATERMARK);
                out.writeUTF(c.origin() == null ? "" : c.origin().value());
                out.writeLong(c.requestId());
                out.writeLong(c.session().clientId());
                out.writeLong(c.session().sequence());
                out.writeLong(c.session().lowWatermark());
                out.write(c.command());
            }
            assertThat(EntryPayload.encode(c)).isEqualTo(reference.toByteArray());
            var back = (EntryPayload.Command) EntryPayload.decode(reference.toByteArray());
            assertThat(back.origin()).isEqualTo(c.origin());
            assertThat(back.requestId()).isEqualTo(c.requestId());
            assertThat(back.session()).isEqualTo(c.session());
            assertThat(back.command()).isEqualTo(c.command());
        }
    }

    @Test
    void throughTheProtocolsKryoCodecTheSameBytesAreACodecException() {
        KryoCodec.Builder builder = KryoCodec.builder();
        new RaftProtocol().registerMessages(builder);
        KryoCodec codec = builder.build();
        RaftMessage.AppendEntries m = append(16, 64);
        byte[] wire = codec.encode(m);
        assertSame(m, (RaftMessage.AppendEntries) codec.decode(wire));
        assertThatThrownBy(() -> codec.decode(Arrays.copyOf(wire, wire.length - 3))).isInstanceOf(CodecException.class)
                .hasMessageContaining("AppendEntries: entry payload claims 64 bytes, 61 remain");
        // Hand-written and Kryo-encoded messages share one codec.
        var vote = new RaftMessage.VoteRequest(3, 10, 2, false);
        assertThat(codec.decode(codec.encode(vote))).isEqualTo(vote);
    }
}
