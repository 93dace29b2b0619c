package io.tandem.kv.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ClientFrames}: frames decoded in place from the cumulation give the messages {@link ClientWire} reads from a
 * frame's own buffer, however the bytes are split into reads; a body that cannot be decoded becomes a {@link
 * ClientFrames.Bad} with its id and the frames after it still decode; a frame above the limit fails at once and the rest
 * is dropped; and no input buffer is left referenced.
 */
class ClientFramesTest {
    private static byte[] frames(List<Request> requests) {
        ByteBuf b = Unpooled.buffer();
        for (Request r : requests) ClientWire.writeRequest(r, b);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    /** A message's wire bytes (requests hold arrays, so they are compared by what they encode to). */
    private static byte[] wire(Object m) {
        ByteBuf b = Unpooled.buffer();
        if (m instanceof Request r) ClientWire.writeRequest(r, b);
        else ClientWire.writeResponse((Response) m, b);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    private static List<Object> drain(EmbeddedChannel ch) {
        List<Object> out = new ArrayList<>();
        for (Object m; (m = ch.readInbound()) != null; ) out.add(m);
        return out;
    }

    @Test
    void everySplitOfTheInputDecodesTheSameRequestsAndReleasesItsBuffers() {
        // Every sample but the 100 KB query, cut into three reads at every byte (the first cut) and halfway through the
        // rest (the second): every frame boundary and every position inside a frame, in the first and in a later read.
        List<Request> sent = ClientWireTest.sampleRequests().stream().filter(r -> wire(r).length < 10_000).toList();
        byte[] all = frames(sent);
        byte[] expected = frames(sent);
        for (int a = 0; a <= all.length; a++) {
            for (int b : new int[] {a, a + (all.length - a) / 2, all.length}) {
                EmbeddedChannel ch = new EmbeddedChannel(ClientFrames.requests(ClientWire.DEFAULT_MAX_FRAME_BYTES));
                List<ByteBuf> inputs = List.of(Unpooled.wrappedBuffer(Arrays.copyOfRange(all, 0, a)),
                        Unpooled.wrappedBuffer(Arrays.copyOfRange(all, a, b)), Unpooled.wrappedBuffer(Arrays.copyOfRange(all, b, all.length)));
                for (ByteBuf in : inputs) ch.writeInbound(in);
                List<Object> got = drain(ch);
                ByteArrayOutputStream back = new ByteArrayOutputStream();
                for (Object m : got) back.writeBytes(wire(m));
                assertThat(got).as("cut at %d and %d", a, b).hasSize(sent.size()).allMatch(m -> m instanceof Request);
                assertThat(back.toByteArray()).as("cut at %d and %d", a, b).isEqualTo(expected);
                assertThat(ch.finish()).isFalse();
                for (ByteBuf in : inputs) {
                    if (in != Unpooled.EMPTY_BUFFER) assertThat(in.refCnt()).as("input released").isZero(); // the shared empty buffer is never released
                }
            }
        }
    }

    @Test
    void aLargeFrameArrivingInManyReadsDecodes() {
        Request big = new Request.Query(4, io.tandem.engine.ReadPolicy.stale(123), new byte[100_000]);
        byte[] all = frames(List.of(big, new Request.Status(5)));
        EmbeddedChannel ch = new EmbeddedChannel(ClientFrames.requests(ClientWire.DEFAULT_MAX_FRAME_BYTES));
        for (int at = 0; at < all.length; at += 1_000) ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(all, at, Math.min(all.length, at + 1_000))));
        List<Object> got = drain(ch);
        assertThat(got).hasSize(2);
        assertThat(wire(got.get(0))).isEqualTo(wire(big));
        assertThat(got.get(1)).isInstanceOf(Request.Status.class);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void responsesDecodeInPlaceToo() {
        List<Response> sent = ClientWireTest.sampleResponses();
        ByteBuf b = Unpooled.buffer();
        for (Response r : sent) ClientWire.writeResponse(r, b);
        EmbeddedChannel ch = new EmbeddedChannel(ClientFrames.responses(ClientWire.DEFAULT_MAX_FRAME_BYTES));
        ch.writeInbound(b);
        List<Object> got = drain(ch);
        assertThat(got).hasSize(sent.size());
        for (int i = 0; i < sent.size(); i++) assertThat(wire(got.get(i))).isEqualTo(wire(sent.get(i)));
        assertThat(b.refCnt()).isZero();
    }

    @Test
    void aBodyThatCannotBeDecodedIsPassedOnAsBadWithItsIdAndTheNextFrameStillDecodes() {
        Request good = new Request.Command(77, 5, 6, new byte[] {1, 2, 3});
        ByteBuf in = Unpooled.buffer();
        // A command whose command length says 1000 bytes: truncated. Header: version, type, request id 0x55AA.
        byte[] goodFrame = frames(List.of(new Request.Command(0x55AA, 1, 2, new byte[] {9})));
        ByteBuf bad = Unpooled.wrappedBuffer(goodFrame.clone());
        bad.setInt(bad.writerIndex() - 5, 1000); // the command's length field (4 bytes before its 1 byte)
        in.writeBytes(bad);
        in.writeBytes(frames(List.of(good)));
        in.writeInt(1).writeByte(ClientWire.VERSION); // a body too short for a header: id 0
        EmbeddedChannel ch = new EmbeddedChannel(ClientFrames.requests(ClientWire.DEFAULT_MAX_FRAME_BYTES));
        ch.writeInbound(in);
        List<Object> got = drain(ch);
        assertThat(got).hasSize(3);
        assertThat(got.get(0)).isInstanceOfSatisfying(ClientFrames.Bad.class, b -> {
            assertThat(b.requestId()).isEqualTo(0x55AA);
            assertThat(b.error()).hasMessageContaining("command length 1000 exceeds");
        });
        assertThat(wire(got.get(1))).isEqualTo(wire(good));
        assertThat(got.get(2)).isInstanceOfSatisfying(ClientFrames.Bad.class, b -> assertThat(b.requestId()).isZero());
        assertThat(in.refCnt()).isZero();
    }

    @Test
    void aFrameAboveTheLimitFailsAtOnceAndEverythingAfterItIsDropped() {
        EmbeddedChannel ch = new EmbeddedChannel(ClientFrames.requests(100));
        byte[] small = frames(List.of(new Request.Status(1)));
        ch.writeInbound(Unpooled.wrappedBuffer(small));
        assertThat(drain(ch)).hasSize(1);
        ByteBuf big = Unpooled.buffer().writeInt(101).writeBytes(new byte[10]);
        assertThatThrownBy(() -> ch.writeInbound(big)).isInstanceOf(TooLongFrameException.class);
        ByteBuf after = Unpooled.wrappedBuffer(small);
        ch.writeInbound(after);
        assertThat(drain(ch)).isEmpty();
        assertThat(big.refCnt()).isZero();
        assertThat(after.refCnt()).isZero();
        ch.finishAndReleaseAll();
    }
}
