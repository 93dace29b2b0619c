// Do syncs overlap on this machine's disk? T threads append RECORD bytes to one file (each at its own reserved offset, as a
// storage with T syncs in flight would) and call force(false) (fdatasync) after each append, for SECONDS each; prints the
// syncs per second and the per-sync latency. If syncs overlap, T threads give about T times the syncs per second at the
// same latency; if the filesystem serves one at a time (ext4's journal commits one transaction at a time), the rate stays
// and the latency grows with T. docs/perfsim.md §9. Run through /work/tools/bench (timing matters):
//   bench java simbench/tools/OverlapSyncs.java DIR [SECONDS] [RECORD]
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

public class OverlapSyncs {
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 3;
        int record = args.length > 2 ? Integer.parseInt(args[2]) : 128;
        for (int threads : new int[] {1, 2, 4, 1, 2, 4}) run(dir, threads, seconds, record);
    }

    static void run(Path dir, int threads, double seconds, int record) throws Exception {
        Path file = Files.createTempFile(dir, "overlap-syncs", ".log");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
            AtomicLong offset = new AtomicLong();
            long end = System.nanoTime() + (long) (seconds * 1e9);
            List<long[]> samples = new ArrayList<>();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long[] lat = new long[2_000_000];
                samples.add(lat);
                ts.add(Thread.ofPlatform().start(() -> {
                    ByteBuffer buf = ByteBuffer.allocate(record);
                    int n = 0;
                    try {
                        while (System.nanoTime() < end && n < lat.length - 1) {
                            long at = offset.getAndAdd(record);
                            long start = System.nanoTime();
                            buf.clear();
                            while (buf.hasRemaining()) ch.write(buf, at + buf.position());
                            ch.force(false);
                            lat[++n] = System.nanoTime() - start;
                        }
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                    lat[0] = n;
                }));
            }
            for (Thread t : ts) t.join();
            long total = 0;
            List<Long> all = new ArrayList<>();
            for (long[] lat : samples) {
                total += lat[0];
                for (int i = 1; i <= lat[0]; i++) all.add(lat[i]);
            }
            long[] sorted = all.stream().mapToLong(Long::longValue).toArray();
            Arrays.sort(sorted);
            System.out.printf(Locale.ROOT, "threads=%d syncs/s=%.0f p50_us=%.1f p90_us=%.1f p99_us=%.1f mean_us=%.1f%n", threads, total / seconds,
                    sorted[sorted.length / 2] / 1e3, sorted[(int) (sorted.length * 0.9)] / 1e3, sorted[(int) (sorted.length * 0.99)] / 1e3,
                    Arrays.stream(sorted).average().orElse(0) / 1e3);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
