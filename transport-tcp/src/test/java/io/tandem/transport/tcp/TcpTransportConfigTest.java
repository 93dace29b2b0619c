package io.tandem.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.codec.FrameFormat;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TcpTransportConfigTest {
    private final TcpTransportConfig d = TcpTransportConfig.defaults();

    @Test
    void defaultsAreValidAndDocumented() {
        assertThat(d.maxFrameBytes()).isEqualTo(FrameFormat.DEFAULT_MAX_FRAME_BYTES);
        assertThat(d.outboundHighWaterMessages()).isEqualTo(65_536);
        assertThat(d.outboundLowWaterMessages()).isEqualTo(32_768);
        assertThat(d.outboundHighWaterBytes()).isEqualTo(64L << 20);
        assertThat(d.outboundLowWaterBytes()).isEqualTo(32L << 20);
        assertThat(d.reconnectBackoffMin()).isEqualTo(Duration.ofMillis(50));
        assertThat(d.reconnectBackoffMax()).isEqualTo(Duration.ofSeconds(2));
        assertThat(d.ioThreads()).isBetween(1, 4);
        assertThat(d.ioMode()).isEqualTo(IoMode.AUTO);
        assertThat(d.withIoMode(IoMode.NIO).withIoThreads(3)).extracting(TcpTransportConfig::ioMode, TcpTransportConfig::ioThreads).containsExactly(IoMode.NIO, 3);
    }

    @Test
    void rejectsInconsistentSettingsNamingTheProblem() {
        assertThatThrownBy(() -> d.withMaxFrameBytes(100)).hasMessageContaining("maxFrameBytes");
        assertThatThrownBy(() -> d.withOutboundWatermarks(10, 20, 1 << 30, 1 << 20)).hasMessageContaining("message watermarks");
        assertThatThrownBy(() -> d.withOutboundWatermarks(10, 0, 1 << 30, 1 << 20)).hasMessageContaining("message watermarks");
        assertThatThrownBy(() -> d.withOutboundWatermarks(10, 5, 1 << 30, 1L << 31)).hasMessageContaining("byte watermarks");
        assertThatThrownBy(() -> d.withOutboundWatermarks(10, 5, 1 << 20, 1 << 19)).hasMessageContaining("must hold one frame of maxFrameBytes");
        assertThatThrownBy(() -> d.withConnectTimeout(Duration.ZERO)).hasMessageContaining("connectTimeout");
        assertThatThrownBy(() -> d.withHandshakeTimeout(Duration.ofSeconds(-1))).hasMessageContaining("handshakeTimeout");
        assertThatThrownBy(() -> d.withReconnectBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1))).hasMessageContaining("reconnectBackoffMax");
        assertThatThrownBy(() -> d.withIoThreads(0)).hasMessageContaining("ioThreads");
        assertThatThrownBy(() -> d.withIoMode(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("ioMode");
    }
}
