import java.lang.foreign.*;
public class CopyCheck {
    static MemorySegment scratch = MemorySegment.ofArray(new long[8192]);
    static void old(MemorySegment src, MemorySegment target, long off, long len) {
        MemorySegment.copy(src, 0, scratch, 0, len);
        MemorySegment.copy(scratch, 0, target, off, len);
    }
    static void words(MemorySegment src, MemorySegment target, long off, long len) {
        MemorySegment to = target.asSlice(off, len);
        for (long i = 0; i < len; i += 8) to.set(ValueLayout.JAVA_LONG, i, src.get(ValueLayout.JAVA_LONG_UNALIGNED, i));
    }
    public static void main(String[] a) {
        Arena arena = Arena.ofShared();
        MemorySegment target = arena.allocate(1 << 20, 64);
        MemorySegment buf = arena.allocate(1 << 16, 64);
        for (int len : new int[] {1024, 8192, 65536 - 64}) {
            MemorySegment src = buf.asSlice(3, len);
            for (int round = 0; round < 6; round++) {
                int mode = round % 3; boolean w = mode == 1; MemorySegment s2 = mode == 2 ? buf.asSlice(0, len) : src;
                double best = Double.MAX_VALUE;
                for (int b = 0; b < 3000; b++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < 100; i++) { long off = (i * 8L * 131) % ((1 << 20) - len) & ~7L; if (mode == 2) MemorySegment.copy(s2, 0, target, off, len); else if (w) words(src, target, off, len); else old(src, target, off, len); }
                    best = Math.min(best, (System.nanoTime() - t0) / 100.0);
                }
                System.out.printf("len %d %s: %.1f ns/copy (best batch)%n", len, mode == 2 ? "aligned memcpy" : w ? "words" : "scratch", best);
            }
        }
    }
}
