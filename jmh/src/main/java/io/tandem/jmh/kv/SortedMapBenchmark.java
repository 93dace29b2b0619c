package io.tandem.jmh.kv;

import io.tandem.kv.btree.BPlusTree;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The KV store's B+-tree against {@code TreeMap} and {@code ConcurrentSkipListMap} at 1M entries
 * of 16-byte random keys and 100-byte values, single-threaded. Keys are picked uniformly at random
 * (a cache-unfriendly worst case for every structure).
 *
 * <ul>
 *   <li>{@code get}: look up an existing key;
 *   <li>{@code put}: overwrite an existing key's value (for the B+-tree: one path copy);
 *   <li>{@code insertRemove}: insert a fresh key and delete it again, keeping the size at 1M
 *       (splits and merges happen; two operations per invocation);
 *   <li>{@code scan100}: read 100 consecutive entries from an existing key.
 * </ul>
 *
 * <pre>java -jar jmh/target/benchmarks.jar 'io.tandem.jmh.kv.*' -f 1 -wi 2 -i 3</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g", "-XX:+UseParallelGC"})
public class SortedMapBenchmark {
    private static final int FRESH_KEYS = 1 << 16;
    private static final int VALUES = 1 << 10;

    @Param({"btree", "treemap", "skiplist"})
    public String map;

    @Param({"1000000"})
    public int size;

    /** B+-tree order; ignored by the other maps. */
    @Param({"" + BPlusTree.DEFAULT_ORDER})
    public int order;

    private SortedMaps.Target target;
    private byte[][] keys;
    private byte[][] freshKeys;
    private byte[][] values;
    private SplittableRandom random;
    private int nextFresh;

    @Setup(Level.Trial)
    public void fill() {
        keys = SortedMaps.randomKeys(size, 1);
        freshKeys = SortedMaps.randomKeys(FRESH_KEYS, 2);
        SplittableRandom data = new SplittableRandom(3);
        values = new byte[VALUES][];
        for (int i = 0; i < VALUES; i++) values[i] = SortedMaps.randomValue(data);
        target = SortedMaps.create(map, order);
        // Each entry gets its own value array, as in a real store.
        for (byte[] key : keys) target.put(key, SortedMaps.randomValue(data));
        random = new SplittableRandom(4);
    }

    private byte[] anyKey() {
        return keys[random.nextInt(keys.length)];
    }

    @Benchmark
    public byte[] get() {
        return target.get(anyKey());
    }

    @Benchmark
    public byte[] put() {
        return target.put(anyKey(), values[random.nextInt(VALUES)]);
    }

    @Benchmark
    public byte[] insertRemove() {
        byte[] key = freshKeys[nextFresh++ & (FRESH_KEYS - 1)];
        target.put(key, values[0]);
        return target.remove(key);
    }

    @Benchmark
    public int scan100(Blackhole blackhole) {
        return target.scan(anyKey(), 100, blackhole::consume);
    }
}
