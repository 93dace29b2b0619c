import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.HdrHistogram.Histogram;

/** java -cp peer-ratis.jar Window.java LOAD_CSV FROM_SECOND TO_SECOND CPU_TICKS: puts/s, p50/p99 (µs), CPU µs per put of seconds FROM+1..TO. */
public class Window {
    public static void main(String[] a) throws Exception {
        List<String> rows = Files.readAllLines(Path.of(a[0]));
        int from = Integer.parseInt(a[1]), to = Integer.parseInt(a[2]);
        long ticks = Long.parseLong(a[3]);
        Histogram h = new Histogram(3);
        long ops = 0, errors = 0;
        for (String r : rows.subList(1, rows.size())) {
            String[] f = r.split(",");
            int s = Integer.parseInt(f[0]);
            if (s <= from || s > to) continue;
            ops += Long.parseLong(f[2]);
            errors += Long.parseLong(f[3]);
            h.add(Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(f[5])), 0));
        }
        System.out.printf("puts/s=%.0f p50_us=%d p99_us=%d errors=%d cpu_us_per_put=%.1f%n", ops / (double) (to - from),
                h.getValueAtPercentile(50), h.getValueAtPercentile(99), errors, ticks * 10_000.0 / Math.max(1, ops));
    }
}
