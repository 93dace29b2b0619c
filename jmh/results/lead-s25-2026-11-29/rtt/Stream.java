import java.io.*;
import java.net.*;
import java.nio.ByteBuffer;
import java.nio.channels.*;
import java.util.*;
import java.util.concurrent.atomic.*;

/**
 * Lead s25: the loopback ceiling for issue 22's 8 KiB point, with no protocol at all. n "members" in one JVM (as in
 * MulticastBenchmark), one TCP connection per ordered pair; each member has one writer thread that sends SIZE-byte
 * messages to every other member (one direct-buffer write each) and one reader thread per incoming connection that
 * reads them into a direct buffer and copies each into a fresh byte[] (the one copy a delivery to the application
 * needs). The rate printed is what MulticastBenchmark reports: messages "delivered" per second at member 0 (its own
 * sends count, as a sender delivers its own messages).
 * BATCH messages go out in one write (1: one system call per message and peer).
 * Usage: java Stream.java N SIZE SECONDS PORT [BATCH]
 */
public class Stream {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]), size = Integer.parseInt(a[1]), seconds = Integer.parseInt(a[2]), port = Integer.parseInt(a[3]);
        int batch = a.length > 4 ? Integer.parseInt(a[4]) : 1;
        ServerSocketChannel[] servers = new ServerSocketChannel[n];
        for (int i = 0; i < n; i++) servers[i] = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port + i), 64);
        SocketChannel[][] out = new SocketChannel[n][n], in = new SocketChannel[n][n];
        for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) if (i != j) {
            out[i][j] = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), port + j));
            out[i][j].setOption(StandardSocketOptions.TCP_NODELAY, true);
            in[j][i] = servers[j].accept();
        }
        AtomicLong received0 = new AtomicLong(), sent0 = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int me = i;
            threads.add(Thread.ofPlatform().daemon().start(() -> {
                ByteBuffer msg = ByteBuffer.allocateDirect(size * batch);
                try {
                    while (!stop.get()) {
                        for (int j = 0; j < n; j++) {
                            if (j == me) continue;
                            msg.clear();
                            while (msg.hasRemaining()) out[me][j].write(msg);
                        }
                        if (me == 0) sent0.addAndGet(batch);
                    }
                } catch (IOException e) { /* closed at the end */ }
            }));
            for (int j = 0; j < n; j++) {
                if (j == me) continue;
                SocketChannel ch = in[me][j];
                threads.add(Thread.ofPlatform().daemon().start(() -> {
                    ByteBuffer buf = ByteBuffer.allocateDirect(256 << 10);
                    long sink = 0;
                    try {
                        while (true) {
                            if (ch.read(buf) < 0) return;
                            buf.flip();
                            int whole = buf.remaining() / size;
                            for (int k = 0; k < whole; k++) {
                                byte[] delivered = new byte[size];
                                buf.get(delivered);
                                sink += delivered[size - 1];
                                if (me == 0) received0.incrementAndGet();
                            }
                            buf.compact();
                        }
                    } catch (IOException e) { /* closed at the end */ }
                    if (sink == 42) System.out.print("");
                }));
            }
        }
        Thread.sleep(3000); // warm-up (a fixed interval of a measurement, not a wait for an event)
        long r0 = received0.get(), s0 = sent0.get(), t0 = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        long r1 = received0.get(), s1 = sent0.get(), t1 = System.nanoTime();
        double secs = (t1 - t0) / 1e9;
        System.out.printf(Locale.ROOT, "n %d size %d batch %d: delivered at member 0 %,.0f msgs/s (received %,.0f + own %,.0f)%n", n, size, batch,
                ((r1 - r0) + (s1 - s0)) / secs, (r1 - r0) / secs, (s1 - s0) / secs);
        stop.set(true);
        System.exit(0);
    }
    static final AtomicBoolean stop = new AtomicBoolean();
}
