package io.tandem.jmh.kv;

import io.tandem.kv.btree.BPlusTree;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;

/** The three ordered maps the KV benchmarks compare, behind one small interface, and their data. */
final class SortedMaps {
    static final int KEY_BYTES = 16;
    static final int VALUE_BYTES = 100;

    private SortedMaps() {}

    interface Target {
        byte[] get(byte[] key);

        byte[] put(byte[] key, byte[] value);

        byte[] remove(byte[] key);

        /** Passes up to {@code count} values from {@code from} on to {@code sink}; returns how many. */
        int scan(byte[] from, int count, Consumer<byte[]> sink);
    }

    static Target create(String kind, int order) {
        return switch (kind) {
            case "btree" -> new TreeTarget(new BPlusTree(order));
            case "treemap" -> new NavigableTarget(new TreeMap<>(Arrays::compareUnsigned));
            case "skiplist" -> new NavigableTarget(new ConcurrentSkipListMap<>(Arrays::compareUnsigned));
            default -> throw new IllegalArgumentException("unknown map " + kind + " (btree, treemap, skiplist)");
        };
    }

    /** The B+-tree's shape, for the footprint report. */
    static io.tandem.kv.btree.TreeStats statsOf(Target target) {
        if (target instanceof TreeTarget(BPlusTree tree)) return tree.snapshot().stats();
        throw new IllegalArgumentException("not a B+-tree: " + target);
    }

    /** {@code count} distinct random keys of {@value #KEY_BYTES} bytes from a fixed seed. */
    static byte[][] randomKeys(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[][] keys = new byte[count][];
        for (int i = 0; i < count; i++) {
            byte[] key = new byte[KEY_BYTES];
            random.nextBytes(key);
            keys[i] = key; // 2^128 key space: a collision in a few million keys is not a practical concern
        }
        return keys;
    }

    static byte[] randomValue(SplittableRandom random) {
        byte[] value = new byte[VALUE_BYTES];
        random.nextBytes(value);
        return value;
    }

    private record TreeTarget(BPlusTree tree) implements Target {
        @Override
        public byte[] get(byte[] key) {
            return tree.get(key);
        }

        @Override
        public byte[] put(byte[] key, byte[] value) {
            return tree.put(key, value);
        }

        @Override
        public byte[] remove(byte[] key) {
            return tree.remove(key);
        }

        @Override
        public int scan(byte[] from, int count, Consumer<byte[]> sink) {
            int[] seen = {0};
            tree.snapshot().forEach(from, null, (k, v) -> {
                sink.accept(v);
                return ++seen[0] < count;
            });
            return seen[0];
        }
    }

    private record NavigableTarget(NavigableMap<byte[], byte[]> map) implements Target {
        @Override
        public byte[] get(byte[] key) {
            return map.get(key);
        }

        @Override
        public byte[] put(byte[] key, byte[] value) {
            return map.put(key, value);
        }

        @Override
        public byte[] remove(byte[] key) {
            return map.remove(key);
        }

        @Override
        public int scan(byte[] from, int count, Consumer<byte[]> sink) {
            int seen = 0;
            Iterator<Map.Entry<byte[], byte[]>> it = map.tailMap(from, true).entrySet().iterator();
            while (seen < count && it.hasNext()) {
                sink.accept(it.next().getValue());
                seen++;
            }
            return seen;
        }
    }
}
