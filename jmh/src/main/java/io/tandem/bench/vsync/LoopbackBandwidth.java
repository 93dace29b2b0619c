package io.tandem.bench.vsync;

import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes the machine moves through TCP on loopback with nothing else to do: {@code k} socket pairs
 * at once, each with one writer thread writing {@code --write} bytes per call from a direct buffer and
 * one reader thread reading them into another (blocking NIO, no framing, no codec, no copy in Java).
 * The figure is the aggregate MB/s (10^6 bytes) over the streams: the ceiling for any protocol whose
 * bytes cross loopback, on this machine's cores (the kernel copies each byte twice: into the socket's
 * buffer and out of it). A multicast to n − 1 receivers crosses loopback n − 1 times per message, so at
 * a delivered rate R with payload P it needs R·(n − 1)·P bytes per second of this.
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar io.tandem.bench.vsync.LoopbackBandwidth --streams 1,2,3,4,6,12,20 \
 *     --write 262144 --warmup 1 --measure 2 --base-port 23900
 * </pre>
 * Prints one CSV line per stream count: streams,write_bytes,mb_per_s_total,mb_per_s_min_stream,seconds.
 */
public final class LoopbackBandwidth {
    private LoopbackBandwidth() {}

    public static void main(String[] args) throws Exception {
        List<Integer> streams = List.of(1, 2, 3, 4);
        int write = 256 << 10;
        double warmup = 1, measure = 2;
        int basePort = 23900;
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--streams" -> {
                    List<Integer> s = new ArrayList<>();
                    for (String x : v.split(",")) s.add(Integer.parseInt(x.trim()));
                    streams = s;
                }
                case "--write" -> write = Integer.parseInt(v);
                case "--warmup" -> warmup = Double.parseDouble(v);
                case "--measure" -> measure = Double.parseDouble(v);
                case "--base-port" -> basePort = Integer.parseInt(v);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.println("# " + Runtime.getRuntime().availableProcessors() + " CPUs; " + write + " bytes per write");
        System.out.println("streams,write_bytes,mb_per_s_total,mb_per_s_min_stream,seconds");
        int port = basePort;
        for (int k : streams) {
            run(k, write, port, warmup, measure);
            port += k;
        }
    }

    private static void run(int k, int write, int basePort, double warmup, double measure) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong[] got = new AtomicLong[k];
        List<Thread> threads = new ArrayList<>();
        List<AutoCloseable> closeables = new ArrayList<>();
        try {
            for (int i = 0; i < k; i++) {
                ServerSocketChannel server = ServerSocketChannel.open();
                server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                server.bind(new InetSocketAddress("127.0.0.1", basePort + i));
                closeables.add(server);
                SocketChannel out = SocketChannel.open(new InetSocketAddress("127.0.0.1", basePort + i));
                SocketChannel in = server.accept();
                out.setOption(StandardSocketOptions.TCP_NODELAY, true);
                closeables.add(out);
                closeables.add(in);
                AtomicLong counter = got[i] = new AtomicLong();
                Thread w = new Thread(() -> {
                    ByteBuffer b = ByteBuffer.allocateDirect(write);
                    try {
                        while (!stop.get()) {
                            b.clear();
                            while (b.hasRemaining()) out.write(b);
                        }
                    } catch (Exception e) {
                        if (!stop.get()) e.printStackTrace();
                    }
                }, "loop-writer-" + i);
                Thread r = new Thread(() -> {
                    ByteBuffer b = ByteBuffer.allocateDirect(write);
                    try {
                        while (!stop.get()) {
                            b.clear();
                            int n = in.read(b);
                            if (n < 0) return;
                            counter.addAndGet(n);
                        }
                    } catch (Exception e) {
                        if (!stop.get()) e.printStackTrace();
                    }
                }, "loop-reader-" + i);
                w.setDaemon(true);
                r.setDaemon(true);
                threads.add(w);
                threads.add(r);
            }
            for (Thread t : threads) t.start();
            Thread.sleep((long) (warmup * 1000));
            long[] before = new long[k];
            for (int i = 0; i < k; i++) before[i] = got[i].get();
            long t0 = System.nanoTime();
            Thread.sleep((long) (measure * 1000));
            long t1 = System.nanoTime();
            double seconds = (t1 - t0) / 1e9;
            double total = 0;
            double min = Double.MAX_VALUE;
            for (int i = 0; i < k; i++) {
                double mb = (got[i].get() - before[i]) / seconds / 1e6;
                total += mb;
                min = Math.min(min, mb);
            }
            System.out.printf(Locale.ROOT, "%d,%d,%.1f,%.1f,%.2f%n", k, write, total, min, seconds);
            System.out.flush();
        } finally {
            stop.set(true);
            for (AutoCloseable c : closeables) c.close();
            for (Thread t : threads) t.join(2000);
        }
    }
}
