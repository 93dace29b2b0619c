package io.tandem.bench.vsync;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many bytes per second the machine's cores copy from one heap array to another in pieces of one
 * message's size ({@code System.arraycopy}), over working sets larger than the caches, with 1 and 2
 * threads: the other ceiling of a loopback multicast besides {@link LoopbackBandwidth}, whose every
 * delivered byte is copied several times in user space (the channel's command, the ring slot, the
 * push frame, the receiver's row, the delivered array) besides the kernel's two copies.
 *
 * <pre>
 * java -cp jmh/target/classes io.tandem.bench.vsync.CopyBandwidth --sizes 1024,8192 --threads 1,2 \
 *     --working-set 67108864 --warmup 0.5 --measure 1.5
 * </pre>
 * Prints one CSV line per point: threads,piece_bytes,mb_per_s_total,seconds (MB = 10^6 bytes).
 */
public final class CopyBandwidth {
    private CopyBandwidth() {}

    public static void main(String[] args) throws Exception {
        List<Integer> sizes = List.of(1024, 8192);
        List<Integer> threads = List.of(1, 2);
        int workingSet = 64 << 20;
        double warmup = 0.5, measure = 1.5;
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--sizes" -> sizes = ints(v);
                case "--threads" -> threads = ints(v);
                case "--working-set" -> workingSet = Integer.parseInt(v);
                case "--warmup" -> warmup = Double.parseDouble(v);
                case "--measure" -> measure = Double.parseDouble(v);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.println("threads,piece_bytes,mb_per_s_total,seconds");
        for (int t : threads) for (int size : sizes) run(t, size, workingSet, warmup, measure);
    }

    private static List<Integer> ints(String csv) {
        List<Integer> out = new ArrayList<>();
        for (String s : csv.split(",")) out.add(Integer.parseInt(s.trim()));
        return out;
    }

    private static void run(int threads, int size, int workingSet, double warmup, double measure) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong[] copied = new AtomicLong[threads];
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            AtomicLong c = copied[i] = new AtomicLong();
            Thread th = new Thread(() -> {
                byte[] from = new byte[workingSet];
                byte[] to = new byte[workingSet];
                int pieces = workingSet / size;
                int a = 0, b = pieces / 2;
                while (!stop.get()) {
                    for (int k = 0; k < 64; k++) {
                        System.arraycopy(from, a * size, to, b * size, size);
                        a = a + 1 == pieces ? 0 : a + 1;
                        b = b + 1 == pieces ? 0 : b + 1;
                    }
                    c.addAndGet(64L * size);
                }
            }, "copy-" + i);
            th.setDaemon(true);
            all.add(th);
        }
        for (Thread th : all) th.start();
        Thread.sleep((long) (warmup * 1000));
        long before = 0;
        for (AtomicLong c : copied) before += c.get();
        long t0 = System.nanoTime();
        Thread.sleep((long) (measure * 1000));
        long t1 = System.nanoTime();
        long after = 0;
        for (AtomicLong c : copied) after += c.get();
        stop.set(true);
        for (Thread th : all) th.join(2000);
        double seconds = (t1 - t0) / 1e9;
        System.out.printf(Locale.ROOT, "%d,%d,%.1f,%.2f%n", threads, size, (after - before) / seconds / 1e6, seconds);
    }
}
