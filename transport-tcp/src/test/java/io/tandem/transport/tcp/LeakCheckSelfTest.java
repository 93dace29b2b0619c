package io.tandem.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/** Proves that {@link NettyLeakCheck} would see a leak, so its silence elsewhere means something. */
class LeakCheckSelfTest {
    @Test
    void anUnreleasedBufferIsReported() throws Exception {
        assertThat(LeakRecorder.installedForByteBuf()).isTrue();
        LeakRecorder.collectLeaks();
        leakOneBuffer();
        assertThat(LeakRecorder.collectLeaks()).anySatisfy(report -> assertThat(report).contains("ByteBuf leaked"));
    }

    @Test
    void aReleasedBufferIsNot() throws Exception {
        LeakRecorder.collectLeaks();
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        buf.writeLong(42);
        buf.release();
        assertThat(LeakRecorder.collectLeaks()).isEmpty();
    }

    private static void leakOneBuffer() {
        ByteBuf leaked = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        leaked.writeLong(7); // touched, then dropped without release()
    }
}
