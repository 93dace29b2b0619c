package io.tandem.jmh.kv;

import io.tandem.kv.btree.BPlusTree;
import io.tandem.kv.btree.TreeStats;
import java.lang.ref.Reference;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Measures heap bytes per entry of the three ordered maps at 1M entries (16-byte keys, 100-byte
 * values): used heap after full collections, with and without the map, divided by the entry count.
 * "Overhead" is what the map adds beyond the key and value arrays themselves (with compressed
 * class pointers a {@code byte[16]} takes 32 bytes and a {@code byte[100]} 120). The first
 * measurement is a warm-up and is not printed: it absorbs one-time heap growth.
 *
 * <pre>java -Xms3g -Xmx3g -XX:+UseSerialGC -cp jmh/target/benchmarks.jar io.tandem.jmh.kv.KvFootprint [entries]</pre>
 */
public final class KvFootprint {
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private KvFootprint() {}

    public static void main(String[] args) {
        int entries = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        System.out.printf(Locale.ROOT, "%d entries, %d-byte keys, %d-byte values, JVM %s%n", entries,
                SortedMaps.KEY_BYTES, SortedMaps.VALUE_BYTES, Runtime.version());
        measure("btree", BPlusTree.DEFAULT_ORDER, entries, false);
        for (String kind : new String[] {"btree", "treemap", "skiplist"}) {
            measure(kind, BPlusTree.DEFAULT_ORDER, entries, true);
        }
        for (int order : new int[] {16, 32, 128, 256}) measure("btree", order, entries, true);
    }

    private static void measure(String kind, int order, int entries, boolean print) {
        long before = usedAfterGc();
        SortedMaps.Target target = SortedMaps.create(kind, order);
        byte[][] keys = SortedMaps.randomKeys(entries, 1);
        SplittableRandom data = new SplittableRandom(3);
        for (int i = 0; i < entries; i++) {
            target.put(keys[i], SortedMaps.randomValue(data));
            keys[i] = null; // only the map keeps the key
        }
        keys = null;
        long after = usedAfterGc();
        Reference.reachabilityFence(target); // the map must be live while the heap is measured
        if (!print) return;
        double perEntry = (after - before) / (double) entries;
        String shape = "";
        if (kind.equals("btree")) {
            TreeStats stats = SortedMaps.statsOf(target);
            shape = String.format(Locale.ROOT, "  height %d, %d leaves, %d internal nodes, leaf fill %.0f%%",
                    stats.height(), stats.leaves(), stats.internalNodes(), stats.leafFill() * 100);
        }
        System.out.printf(Locale.ROOT, "%-8s order %-4s %7.1f bytes/entry, overhead %6.1f bytes/entry%s%n", kind,
                kind.equals("btree") ? String.valueOf(order) : "-", perEntry,
                perEntry - arrayBytes(SortedMaps.KEY_BYTES) - arrayBytes(SortedMaps.VALUE_BYTES), shape);
    }

    /** A byte array's heap size: a 16-byte header, the data, padding to 8 bytes. */
    private static long arrayBytes(int length) {
        return (16 + length + 7) & ~7L;
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 4; i++) System.gc();
        return MEMORY.getHeapMemoryUsage().getUsed();
    }
}
