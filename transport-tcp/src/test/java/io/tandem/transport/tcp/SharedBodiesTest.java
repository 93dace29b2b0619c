package io.tandem.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.codec.CodecException;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.ProtocolMessage;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The lifetime rules of {@link SharedBodies} (wire22): a body is never rewritten while a frame or its owner holds it. */
class SharedBodiesTest {
    private final KryoCodec codec = TestSupport.codec();

    private static TestSupport.Shared message(long seq, int size) {
        byte[] payload = new byte[size];
        Arrays.fill(payload, (byte) seq);
        return new TestSupport.Shared(seq, seq, payload);
    }

    private byte[] bytesOf(SharedBodies.Body b) {
        return Arrays.copyOf(b.array(), b.length());
    }

    @Test
    void theSameInstanceGetsTheSameBodyAndItsBytesAreTheCodecs() {
        SharedBodies bodies = new SharedBodies(codec, codec.maxEncodedBytes());
        TestSupport.Shared m = message(1, 100);
        SharedBodies.Body b = bodies.bodyOf(m);
        assertThat(bodies.bodyOf(m)).isSameAs(b);
        assertThat(bytesOf(b)).isEqualTo(codec.encode(m));
        assertThat(b.references()).as("the owner's hold").isEqualTo(1);
        int encodings = TestSupport.SHARED_ENCODINGS.get();
        SharedBodies.Body again = bodies.bodyOf(message(1, 100));
        assertThat(TestSupport.SHARED_ENCODINGS.get()).as("an equal message, another instance: encoded again").isEqualTo(encodings + 1);
        assertThat(again).as("no frame held the first body: reused").isSameAs(b);
    }

    @Test
    void aBodyAFrameStillHoldsIsNotReusedUntilEveryHolderReleasedIt() {
        SharedBodies bodies = new SharedBodies(codec, codec.maxEncodedBytes());
        TestSupport.Shared first = message(1, 300);
        SharedBodies.Body b1 = bodies.bodyOf(first);
        byte[] expected = codec.encode(first);
        b1.retain(); // two links queued it
        b1.retain();
        // The owner moves on to other messages while both frames are still queued: b1 must keep its bytes.
        SharedBodies.Body b2 = bodies.bodyOf(message(2, 50));
        assertThat(b2).isNotSameAs(b1);
        SharedBodies.Body b3 = bodies.bodyOf(message(3, 50));
        assertThat(b3).isNotSameAs(b1);
        assertThat(b1.references()).isEqualTo(2);
        assertThat(bytesOf(b1)).isEqualTo(expected);
        b1.release(); // the first link copied it
        assertThat(bodies.bodyOf(message(4, 50))).as("one frame still holds b1").isNotSameAs(b1);
        assertThat(bytesOf(b1)).isEqualTo(expected);
        b1.release(); // the second link copied it: free
        assertThat(b1.isFree()).isTrue();
        // b2 was freed when b3 replaced it as the owner's last body (no frame held it), and b3 when the fourth message came.
        TestSupport.Shared fifth = message(5, 20);
        SharedBodies.Body b5 = bodies.bodyOf(fifth);
        assertThat(b5).as("a free kept body is reused").isIn(b1, b2, b3);
        assertThat(bytesOf(b5)).isEqualTo(codec.encode(fifth));
        assertThat(bodies.keptBodies()).isLessThanOrEqualTo(SharedBodies.KEPT);
    }

    @Test
    void whenEveryKeptBodyIsHeldANewOneIsMadeAndNoneIsOverwritten() {
        SharedBodies bodies = new SharedBodies(codec, codec.maxEncodedBytes());
        int n = SharedBodies.KEPT + 3;
        SharedBodies.Body[] held = new SharedBodies.Body[n];
        byte[][] expected = new byte[n][];
        for (int i = 0; i < n; i++) {
            TestSupport.Shared m = message(i, 10 + i);
            held[i] = bodies.bodyOf(m);
            held[i].retain(); // a slow peer's queue keeps every one
            expected[i] = codec.encode(m);
        }
        for (int i = 0; i < n; i++) assertThat(bytesOf(held[i])).as("body %d", i).isEqualTo(expected[i]);
        assertThat(Arrays.stream(held).distinct().count()).isEqualTo(n);
        assertThat(bodies.keptBodies()).isEqualTo(SharedBodies.KEPT);
    }

    @Test
    void anUnencodableMessageLeavesNoHoldAndTheBodyIsReusable() {
        SharedBodies bodies = new SharedBodies(codec, 256); // a small maximum: a 1,000-byte payload cannot be encoded
        SharedBodies.Body before = bodies.bodyOf(message(1, 10));
        assertThatThrownBy(() -> bodies.bodyOf(message(2, 1000))).isInstanceOf(CodecException.class);
        assertThat(before.isFree()).as("the owner's hold moved off the previous body").isTrue();
        SharedBodies.Body after = bodies.bodyOf(message(3, 10));
        assertThat(bytesOf(after)).isEqualTo(codec.encode(message(3, 10)));
    }

    @Test
    void releasingMoreThanRetainedIsABug() {
        SharedBodies bodies = new SharedBodies(codec, codec.maxEncodedBytes());
        SharedBodies.Body b = bodies.bodyOf(message(1, 10));
        b.release();
        assertThatThrownBy(b::release).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anyProtocolMessageTypeIsAccepted() {
        SharedBodies bodies = new SharedBodies(codec, codec.maxEncodedBytes());
        ProtocolMessage m = new TestSupport.Seq(7, 7, new byte[3]);
        assertThat(bytesOf(bodies.bodyOf(m))).isEqualTo(codec.encode(m));
    }
}
