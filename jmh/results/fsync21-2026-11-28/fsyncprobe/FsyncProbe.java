import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.*;
import java.util.Arrays;
import static java.nio.file.StandardOpenOption.*;

/**
 * fsync21: how long one fdatasync (FileChannel.force(false)) of a small batch takes on this machine's disk, when the
 * batch extends the file (ext4 must commit the new size and the block allocation through its journal) against when it
 * overwrites blocks preallocated with zeros and already synced (only the data blocks and a cache flush).
 * Usage: java FsyncProbe.java DIR [batches] [batchBytes]
 */
public class FsyncProbe {
    public static void main(String[] a) throws Exception {
        Path dir = Path.of(a[0]);
        int n = a.length > 1 ? Integer.parseInt(a[1]) : 400;
        int bytes = a.length > 2 ? Integer.parseInt(a[2]) : 4096;
        Files.createDirectories(dir);
        ByteBuffer buf = ByteBuffer.allocateDirect(bytes);
        for (int round = 0; round < 2; round++) {
            for (String mode : new String[] {"append", "overwrite-preallocated", "write-into-hole"}) {
                Path f = dir.resolve("probe-" + mode + ".bin");
                Files.deleteIfExists(f);
                try (FileChannel ch = FileChannel.open(f, CREATE_NEW, WRITE, READ)) {
                    if (mode.equals("overwrite-preallocated")) {
                        ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
                        long total = (long) n * bytes + (1 << 20);
                        long[] ext = new long[(int) ((total + zeros.capacity() - 1) / zeros.capacity())];
                        int k = 0;
                        for (long p = 0; p < total; p += zeros.capacity()) {
                            long s0 = System.nanoTime();
                            zeros.clear();
                            ch.write(zeros, p);
                            ch.force(false); // one 1 MiB extension made durable, as the log's preallocation does
                            ext[k++] = System.nanoTime() - s0;
                        }
                        Arrays.sort(ext, 0, k);
                        System.out.printf("round %d extend-1MiB-zeros+fdatasync  n=%d  p50 %.3f ms  max %.3f%n", round, k, ext[k / 2] / 1e6, ext[k - 1] / 1e6);
                    }
                    if (mode.equals("write-into-hole")) {
                        // RandomAccessFile.setLength: a sparse extension (a hole), as mapping past the end does
                        try (var raf = new java.io.RandomAccessFile(f.toFile(), "rw")) { raf.setLength((long) n * bytes + (1 << 20)); }
                        ch.force(true);
                    }
                    long[] t = new long[n];
                    for (int i = 0; i < n; i++) {
                        buf.clear();
                        while (buf.hasRemaining()) buf.put((byte) i);
                        buf.flip();
                        long pos = (long) i * bytes;
                        long s = System.nanoTime();
                        while (buf.hasRemaining()) pos += ch.write(buf, pos);
                        ch.force(false);
                        t[i] = System.nanoTime() - s;
                    }
                    Arrays.sort(t);
                    System.out.printf("round %d %-24s n=%d bytes=%d  p50 %.3f ms  p90 %.3f  p99 %.3f  mean %.3f%n", round, mode, n, bytes,
                            t[n / 2] / 1e6, t[n * 9 / 10] / 1e6, t[n * 99 / 100] / 1e6, Arrays.stream(t).average().orElse(0) / 1e6);
                }
                Files.delete(f);
            }
        }
    }
}
