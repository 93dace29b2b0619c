package io.tandem.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class FrameFormatTest {
    @Test
    void aValidHeaderRoundTrips() {
        ByteBuffer b = ByteBuffer.allocate(FrameFormat.HEADER_BYTES);
        FrameFormat.writeHeader(b, FrameFormat.TYPE_MESSAGE, 1234);
        b.flip();
        FrameFormat.Header h = FrameFormat.readHeader(b, 4096);
        assertThat(h.type()).isEqualTo(FrameFormat.TYPE_MESSAGE);
        assertThat(h.length()).isEqualTo(1234);
    }

    @Test
    void garbageIsRejectedAsNotATandemPeer() {
        ByteBuffer b = ByteBuffer.wrap("GET / HTTP/1.1\r\n".getBytes());
        assertThatThrownBy(() -> FrameFormat.readHeader(b, 4096)).isInstanceOf(FrameFormat.MalformedFrameException.class).hasMessageContaining("bad magic");
    }

    @Test
    void anOversizedLengthIsRejectedFromTheHeaderAlone() {
        ByteBuffer b = ByteBuffer.allocate(FrameFormat.HEADER_BYTES);
        FrameFormat.writeHeader(b, FrameFormat.TYPE_MESSAGE, 5000);
        b.flip();
        assertThatThrownBy(() -> FrameFormat.readHeader(b, 4096)).isInstanceOf(FrameFormat.OversizedFrameException.class).hasMessageContaining("exceeds the maximum of 4096");
    }

    @Test
    void negativeLengthUnknownTypeAndVersionAreRejected() {
        ByteBuffer neg = ByteBuffer.allocate(8).putShort(FrameFormat.MAGIC).put(FrameFormat.VERSION).put(FrameFormat.TYPE_MESSAGE).putInt(-1).flip();
        assertThatThrownBy(() -> FrameFormat.readHeader(neg, 4096)).isInstanceOf(FrameFormat.MalformedFrameException.class);
        ByteBuffer type = ByteBuffer.allocate(8).putShort(FrameFormat.MAGIC).put(FrameFormat.VERSION).put((byte) 99).putInt(1).flip();
        assertThatThrownBy(() -> FrameFormat.readHeader(type, 4096)).hasMessageContaining("unknown frame type 99");
        ByteBuffer version = ByteBuffer.allocate(8).putShort(FrameFormat.MAGIC).put((byte) 9).put(FrameFormat.TYPE_MESSAGE).putInt(1).flip();
        assertThatThrownBy(() -> FrameFormat.readHeader(version, 4096)).hasMessageContaining("unsupported frame version 9");
        ByteBuffer shortHeader = ByteBuffer.allocate(3);
        assertThatThrownBy(() -> FrameFormat.readHeader(shortHeader, 4096)).hasMessageContaining("truncated");
    }
}
