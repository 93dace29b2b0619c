package io.tandem.transport.tcp;

import com.esotericsoftware.kryo.io.Output;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.ProtocolMessage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One sending thread's reusable frame bodies for {@link io.tandem.codec.SharedEncoding} messages (wire22): a
 * leader's AppendEntries is encoded once into an array kept from earlier batches, every link that queues it holds
 * a reference, and each link's drain copies the bytes into its socket buffer and lets go. Before, each batch was
 * encoded into the codec's pooled buffer and then copied into a fresh array ({@code Output.toBytes}: 8 % of a
 * leader's allocation at 64 clients), which the drains then copied again.
 *
 * <p><b>Lifetime.</b> A body's array is written only by its owner thread (the thread whose sends it encodes), and
 * only while its count is 0. The count is 1 for the owner's own hold on the last body it encoded (so the next send
 * of the same message to another peer takes it again), plus 1 per queued frame that refers to it. A link releases
 * its reference only after the copy of the bytes out of the array is complete (into the direct-send buffer or a
 * Netty batch buffer) or when it drops the frame (queue full, transport closed, member removed); the owner releases
 * its hold when it encodes another message. The release is a volatile decrement and the owner's test for 0 is a
 * volatile read, so every read of the array by a link happens before the owner writes it again. A reference never
 * released (a drain that failed mid-copy) only keeps its body out of reuse: the owner then encodes into a new one,
 * so a leak costs memory, never another message's bytes. Counts are only ever raised by the owner while it holds
 * its own reference, so a body whose count reached 0 cannot be revived by a link.
 *
 * <p>Not thread-safe apart from {@link Body#release}: one instance per sending thread.
 */
final class SharedBodies {
    /** Bodies kept for reuse; a thread rarely has more than its last body and the previous one still queued. */
    static final int KEPT = 8;
    /** An array grown past this (a huge message) is not kept: the next encoding starts from a small one again. */
    private static final int MAX_KEPT_ARRAY = 1 << 20;
    private static final int INITIAL_ARRAY = 4096;

    /** An encoded body: {@code length()} bytes of {@code array()} from 0. */
    static final class Body {
        private final Output out;
        private final AtomicInteger refs = new AtomicInteger();
        /** The message encoded here (owner thread only), or null. */
        private ProtocolMessage message;

        private Body(int maxBytes) {
            out = new Output(Math.min(INITIAL_ARRAY, maxBytes), maxBytes);
        }

        byte[] array() {
            return out.getBuffer();
        }

        int length() {
            return out.position();
        }

        /** A link's reference, taken by the owner thread while it holds its own (so the count is at least 1). */
        void retain() {
            refs.incrementAndGet();
        }

        /** Lets go of one reference, once the bytes were copied out of the array or the frame was dropped (any thread). */
        void release() {
            int left = refs.decrementAndGet();
            if (left < 0) throw new IllegalStateException("shared body released more often than retained");
        }

        /** No frame and no owner hold refers to it: the owner may write it (a volatile read, after every release). */
        boolean isFree() {
            return refs.get() == 0;
        }

        int references() {
            return refs.get();
        }
    }

    private final KryoCodec codec;
    private final int maxBytes;
    private final Body[] kept = new Body[KEPT];
    private Body last;

    SharedBodies(KryoCodec codec, int maxBytes) {
        this.codec = codec;
        this.maxBytes = maxBytes;
    }

    /**
     * The body of {@code message}: the last one if it is the same instance, else a fresh encoding into a free body,
     * which becomes the last (the owner's hold on the previous last is released). The caller {@link Body#retain}s it
     * for each frame it queues.
     *
     * @throws io.tandem.codec.CodecException if the message cannot be encoded (no body is held for it then)
     */
    Body bodyOf(ProtocolMessage message) {
        Body b = last;
        if (b != null && b.message == message) return b;
        if (b != null) {
            last = null;
            b.message = null;
            b.release(); // the owner's hold: the body is free again once the links that queued it have copied it
        }
        Body body = free();
        Output out = body.out;
        if (out.getBuffer().length > MAX_KEPT_ARRAY) out.setBuffer(new byte[Math.min(INITIAL_ARRAY, maxBytes)], maxBytes);
        out.reset();
        codec.encodeTo(message, out); // on a CodecException the body stays free (count 0) for the next encoding
        body.message = message;
        body.retain(); // the owner's hold, until another message is encoded
        last = body;
        return body;
    }

    /** A kept body no frame refers to any more, or a new one (kept if there is room). */
    private Body free() {
        for (int i = 0; i < kept.length; i++) {
            Body k = kept[i];
            if (k == null) return kept[i] = new Body(maxBytes);
            if (k.isFree()) return k;
        }
        return new Body(maxBytes); // every kept body is still queued somewhere (a slow peer): this one is not kept
    }

    /** The references held on the kept bodies, the owner's own hold included (tests). */
    int keptReferences() {
        int n = 0;
        for (Body k : kept) if (k != null) n += k.references();
        return n;
    }

    /** Bodies kept for reuse (tests). */
    int keptBodies() {
        int n = 0;
        for (Body k : kept) if (k != null) n++;
        return n;
    }
}
