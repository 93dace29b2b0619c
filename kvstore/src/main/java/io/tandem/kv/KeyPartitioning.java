package io.tandem.kv;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;

/**
 * How the KV service's keys are split among P-SMR workers: contiguous key ranges, worker {@code i}
 * owning {@code [lower(i), lower(i+1))} in the tree's own key order (unsigned lexicographic), so a
 * leaf that lies inside one range is touched by that worker alone (opt-psmr.md §4.2). Range, not
 * hash: with hashing every leaf straddles partitions and no insert could ever run in parallel
 * (pitfall 12). Every replica and client of a service must use the same partitioning and thread count.
 */
public interface KeyPartitioning {
    /** The worker that owns {@code key} among {@code threads}. */
    int workerOf(byte[] key, int threads);

    /**
     * Whether every key in {@code [low, high)} (null: open end) belongs to {@code worker}: conditions
     * (b) and (c) of the B+-tree's safety check, from the static partition bounds, never from keys
     * stored in the neighbours' ranges (pitfall 13).
     */
    boolean covers(int worker, int threads, byte[] low, byte[] high);

    /** Uniform over the first 8 bytes of the key (big-endian, shorter keys padded with zeros). */
    static KeyPartitioning uniformPrefix() {
        return new Ranges("uniform", threads -> {
            byte[][] b = new byte[threads - 1][];
            long step = Long.divideUnsigned(-1L, threads);
            for (int i = 1; i < threads; i++) b[i - 1] = ByteBuffer.allocate(8).putLong(step * i).array();
            return b;
        });
    }

    /**
     * Keys that are 8-byte big-endian longs in {@code [0, keyMax]}: equal spans of
     * {@code ceil((keyMax + 1) / threads)} (no overflow, and {@code keyMax} itself maps to the last
     * worker, pitfall 11).
     */
    static KeyPartitioning longKeys(long keyMax) {
        if (keyMax < 1) throw new IllegalArgumentException("keyMax must be >= 1, was " + keyMax);
        return new Ranges("longs:" + keyMax, threads -> {
            long span = keyMax / threads + 1; // ceil((keyMax + 1) / threads) or one more: keyMax / span < threads
            byte[][] b = new byte[threads - 1][];
            for (int i = 1; i < threads; i++) b[i - 1] = ByteBuffer.allocate(8).putLong(Math.min(keyMax, span * i)).array();
            return b;
        });
    }

    /** {@code uniform} or {@code longs:<keyMax>}; a clear error otherwise. */
    static KeyPartitioning parse(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        if (t.equals("uniform")) return uniformPrefix();
        if (t.startsWith("longs:")) {
            try {
                return longKeys(Long.parseLong(t.substring(6)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("partitioning '" + s + "': the key maximum must be a number");
            }
        }
        throw new IllegalArgumentException("unknown partitioning '" + s + "': use uniform or longs:<keyMax>");
    }

    /** Range partitioning by K-1 lower bounds (computed once per thread count). */
    final class Ranges implements KeyPartitioning {
        private final String name;
        private final java.util.function.IntFunction<byte[][]> bounds;
        private volatile byte[][] cached;
        private volatile int cachedThreads;

        Ranges(String name, java.util.function.IntFunction<byte[][]> bounds) {
            this.name = name;
            this.bounds = bounds;
        }

        private byte[][] bounds(int threads) {
            if (cachedThreads == threads && cached != null) return cached;
            byte[][] b = bounds.apply(threads);
            cached = b;
            cachedThreads = threads;
            return b;
        }

        @Override
        public int workerOf(byte[] key, int threads) {
            if (threads == 1) return 0;
            byte[][] b = bounds(threads);
            int lo = 0;
            int hi = b.length; // the number of bounds <= key
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (Arrays.compareUnsigned(b[mid], key) <= 0) lo = mid + 1;
                else hi = mid;
            }
            return lo;
        }

        @Override
        public boolean covers(int worker, int threads, byte[] low, byte[] high) {
            if (threads == 1) return true;
            byte[][] b = bounds(threads);
            byte[] lower = worker == 0 ? null : b[worker - 1];
            byte[] upper = worker == threads - 1 ? null : b[worker];
            boolean lowOk = lower == null || (low != null && Arrays.compareUnsigned(low, lower) >= 0);
            boolean highOk = upper == null || (high != null && Arrays.compareUnsigned(high, upper) <= 0);
            return lowOk && highOk;
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
