package io.tandem.transport.tcp;

import static io.tandem.transport.tcp.TestSupport.CLUSTER;
import static io.tandem.transport.tcp.TestSupport.N1;
import static io.tandem.transport.tcp.TestSupport.N2;
import static io.tandem.transport.tcp.TestSupport.N3;
import static io.tandem.transport.tcp.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.codec.FrameFormat;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Random hostile input to a member port (the raw socket plays n1 next to a healthy n2 - n3 pair):
 * random bytes, valid handshakes followed by bit-flipped or truncated frames, oversized headers,
 * and slow peers that send part of a frame and stall. The healthy pair must keep delivering
 * throughout, and every hostile connection must end (refused, or closed at the handshake timeout),
 * so nothing is held. 300 inputs by default (seeded, the seed is printed);
 * {@code -Dtandem.fuzz.inputs=N} runs longer.
 */
@ExtendWith(NettyLeakCheck.class)
class TcpFuzzTest {
    private static final int MAX_FRAME = 64 * 1024;

    @Test
    void hostileInputNeverHurtsTheHealthyPair() throws Exception {
        int inputs = Integer.getInteger("tandem.fuzz.inputs", 300);
        long seed = Long.getLong("tandem.fuzz.seed", System.nanoTime());
        System.out.println("TcpFuzzTest: " + inputs + " inputs, seed " + seed + " (-Dtandem.fuzz.seed=" + seed + " repeats them)");
        Random random = new Random(seed);
        AtomicLong seq = new AtomicLong();
        TcpTransportConfig config = TcpTransportTest.fast().withMaxFrameBytes(MAX_FRAME).withHandshakeTimeout(Duration.ofMillis(500))
                .withPendingConnectionLimits(64, 128);
        try (Cluster cluster = new Cluster(CLUSTER, config, N1, N2, N3)) {
            TcpTransport n2 = cluster.start(N2);
            cluster.start(N3);
            cluster.assertDelivers(N2, N3, seq.incrementAndGet());
            byte[] valid = cluster.codec.encode(new TestSupport.Seq(7, 7, new byte[] {1, 2, 3}));
            byte[] hello = frame(FrameFormat.TYPE_HANDSHAKE, new Handshake(CLUSTER, N1, N2).encode());
            List<Socket> stalled = new ArrayList<>();
            for (int i = 0; i < inputs; i++) {
                int kind = random.nextInt(6);
                byte[] input = switch (kind) {
                    case 0 -> bytes(random, random.nextInt(2048));
                    case 1 -> concat(hello, flip(random, frame(FrameFormat.TYPE_MESSAGE, valid)));
                    case 2 -> concat(hello, truncate(random, frame(FrameFormat.TYPE_MESSAGE, valid)));
                    case 3 -> concat(flip(random, hello), frame(FrameFormat.TYPE_MESSAGE, valid));
                    case 4 -> header(FrameFormat.TYPE_MESSAGE, MAX_FRAME + 1 + random.nextInt(Integer.MAX_VALUE - MAX_FRAME - 1));
                    default -> truncate(random, hello); // a slow peer: part of a handshake, then nothing
                };
                Socket s = new Socket();
                s.connect(new InetSocketAddress("127.0.0.1", cluster.endpoint(N2).port()), 5_000);
                try {
                    s.getOutputStream().write(input);
                    s.getOutputStream().flush();
                    // All but the slow peers hang up after their input (a flipped bit may leave a valid
                    // handshake and message: such a connection is a legitimate n1 until it ends).
                    if (kind != 5) s.shutdownOutput();
                } catch (IOException e) {
                    // closed by n2 already
                }
                stalled.add(s);
                if (i % 50 == 49) {
                    cluster.assertDelivers(N2, N3, seq.incrementAndGet());
                    cluster.assertDelivers(N3, N2, seq.incrementAndGet());
                }
            }
            // Every hostile connection ends: refused at once, or at the handshake timeout.
            await("n2 closed every hostile connection", () -> stalled.stream().allMatch(TcpFuzzTest::endOfStream),
                    () -> n2.stats().toString());
            for (Socket s : stalled) s.close();
            cluster.assertDelivers(N2, N3, seq.incrementAndGet());
            cluster.assertDelivers(N3, N2, seq.incrementAndGet());
            assertThat(n2.stats().malformedFrames() + n2.stats().oversizedFrames() + n2.stats().handshakeRejections()).isPositive();
        }
    }

    private static boolean endOfStream(Socket s) {
        try {
            s.setSoTimeout(20);
            byte[] sink = new byte[4096];
            while (true) {
                if (s.getInputStream().read(sink) < 0) return true; // drain a handshake reply, if any
            }
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    static byte[] frame(byte type, byte[] body) {
        ByteBuffer f = ByteBuffer.allocate(FrameFormat.HEADER_BYTES + body.length);
        FrameFormat.writeHeader(f, type, body.length);
        f.put(body);
        return f.array();
    }

    private static byte[] header(byte type, int length) {
        ByteBuffer f = ByteBuffer.allocate(FrameFormat.HEADER_BYTES);
        FrameFormat.writeHeader(f, type, length);
        return f.array();
    }

    private static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    private static byte[] flip(Random r, byte[] in) {
        byte[] out = in.clone();
        for (int k = 1 + r.nextInt(4); k > 0; k--) out[r.nextInt(out.length)] ^= (byte) (1 << r.nextInt(8));
        return out;
    }

    private static byte[] truncate(Random r, byte[] in) {
        return java.util.Arrays.copyOf(in, r.nextInt(in.length));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
