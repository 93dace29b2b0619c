package io.tandem.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.tandem.engine.ReadPolicy;
import io.tandem.kv.KvCommand;
import io.tandem.kv.KvQuery;
import io.tandem.kv.KvStateMachine;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.ClientWire;
import io.tandem.kv.net.MembershipChange;
import io.tandem.kv.net.Request;
import io.tandem.kv.net.Response;
import io.tandem.kv.testing.InJvmCluster;
import io.tandem.kv.testing.RawClient;
import io.tandem.testing.Await;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random hostile input to the client port of a serving node: random bytes, bit-flipped and truncated
 * frames, oversized and negative lengths, pipelined bursts, and slow clients that send part of a
 * frame and stall. The node must keep serving a real client throughout and end every hostile
 * connection (at once, or at the idle timeout), so the open-connection gauge returns to zero.
 * Anonymous clients here may read and write but not administer, so no random frame can change the
 * membership. 300 inputs by default (seeded, the seed is printed); {@code -Dtandem.fuzz.inputs=N}
 * runs longer.
 */
class ClientPortFuzzTest {
    @TempDir
    Path tmp;

    @Test
    void hostileInputNeverStopsTheServer() throws Exception {
        int inputs = Integer.getInteger("tandem.fuzz.inputs", 300);
        long seed = Long.getLong("tandem.fuzz.seed", System.nanoTime());
        System.out.println("ClientPortFuzzTest: " + inputs + " inputs, seed " + seed + " (-Dtandem.fuzz.seed=" + seed + " repeats them)");
        Random random = new Random(seed);
        try (InJvmCluster cluster = InJvmCluster.start(tmp, 1, Map.of("anonymous-roles", "read,write", "client-idle-timeout", "1s"));
             TandemKvClient kv = cluster.client()) {
            cluster.awaitLeader(Duration.ofSeconds(30));
            var port = cluster.clientAddress(0);
            var codec = new KvStateMachine().codec();
            List<byte[]> valid = List.of(
                    frame(new Request.Status(1)),
                    frame(new Request.Command(2, 0, 0, codec.encode(new KvCommand.Put(b("fuzz"), b("v"))))),
                    frame(new Request.Query(3, ReadPolicy.LINEARIZABLE, codec.encode(new KvQuery.Get(b("fuzz"))))),
                    frame(new Request.ChangeMembership(4, MembershipChange.REMOVE, "n1")));
            List<Socket> sockets = new ArrayList<>();
            for (int i = 0; i < inputs; i++) {
                byte[] pick = valid.get(random.nextInt(valid.size()));
                int kind = random.nextInt(6);
                byte[] input = switch (kind) {
                    case 0 -> bytes(random, random.nextInt(4096));
                    case 1 -> flip(random, pick);
                    case 2 -> Arrays.copyOf(pick, random.nextInt(pick.length));
                    case 3 -> new byte[] {(byte) (0x80 | random.nextInt(128)), 0, 0, 0, 1, 2, 3}; // a negative or huge length
                    case 4 -> {
                        byte[] burst = new byte[0];
                        for (int k = 0; k < 50; k++) burst = concat(burst, valid.get(random.nextInt(valid.size())));
                        yield burst;
                    }
                    default -> Arrays.copyOf(pick, 1 + random.nextInt(pick.length - 1)); // a slow client: part of a frame, then nothing
                };
                Socket s = new Socket();
                s.connect(new InetSocketAddress(port.host(), port.port()), 5_000);
                try {
                    s.getOutputStream().write(input);
                    s.getOutputStream().flush();
                    if (kind != 5) s.shutdownOutput();
                } catch (IOException e) {
                    // closed by the server already
                }
                sockets.add(s);
                if (i % 50 == 49) kv.put(b("alive-" + i), b("yes"));
            }
            Await.until(Duration.ofSeconds(30), () -> sockets.stream().allMatch(ClientPortFuzzTest::endOfStream), () -> "every hostile connection ended");
            for (Socket s : sockets) s.close();
            Gauge open = cluster.server(0).meterRegistry().find("tandem.kv.server.connections").gauge();
            Await.until(Duration.ofSeconds(10), () -> open.value() <= 1, () -> "open client connections back to the real client's: " + open.value());
            try (RawClient status = new RawClient(port)) {
                assertThat(status.call(new Request.Status(9))).isInstanceOf(Response.StatusReport.class);
            }
            kv.put(b("after"), b("ok"));
            assertThat(kv.get(b("after"))).isPresent();
            assertThat(cluster.server(0).status().voters()).containsExactly("n1");
        }
    }

    private static boolean endOfStream(Socket s) {
        try {
            s.setSoTimeout(20);
            byte[] sink = new byte[8192];
            while (true) {
                if (s.getInputStream().read(sink) < 0) return true; // drain answers, if any
            }
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private static byte[] frame(Request r) {
        ByteBuf b = Unpooled.buffer();
        ClientWire.writeRequest(r, b);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
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

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
