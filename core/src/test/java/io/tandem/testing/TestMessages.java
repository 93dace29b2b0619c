package io.tandem.testing;

import io.tandem.codec.CodecIds;
import io.tandem.codec.KryoCodec;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.ProtocolMessage;
import java.util.List;

/** Message types for transport and codec tests. */
public final class TestMessages {
    private TestMessages() {}

    public record Ping(long requestId, long sequence, byte[] payload) implements ProtocolMessage {}

    public record Batch(long requestId, List<String> items, long[] numbers) implements ProtocolMessage {}

    /** Not registered anywhere: sending it must fail cleanly. */
    public record Unregistered(long requestId) implements ProtocolMessage {}

    public static void register(MessageRegistry registry) {
        registry.register(Ping.class, CodecIds.TEST_FIRST);
        registry.register(Batch.class, CodecIds.TEST_FIRST + 1);
    }

    public static KryoCodec codec() {
        KryoCodec.Builder b = KryoCodec.builder();
        register(b);
        return b.build();
    }
}
