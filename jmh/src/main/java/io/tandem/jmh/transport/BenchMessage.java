package io.tandem.jmh.transport;

import io.tandem.codec.CodecIds;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.ProtocolMessage;

/** The benchmark's message: a sequence number (as the request id), whether to echo it, and the payload. */
public record BenchMessage(long requestId, boolean echo, byte[] payload) implements ProtocolMessage {
    static KryoCodec codec() {
        KryoCodec.Builder b = KryoCodec.builder();
        b.register(BenchMessage.class, CodecIds.TEST_FIRST);
        return b.build();
    }
}
