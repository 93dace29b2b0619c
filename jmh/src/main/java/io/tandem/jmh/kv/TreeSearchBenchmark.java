package io.tandem.jmh.kv;

import io.tandem.kv.btree.BPlusTree;
import io.tandem.kv.btree.TreeWriter;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The B+-tree's key search and put as the KV state machine drives them (issue 25, part 15), on the benchmark
 * thread, with the keys real loads use:
 *
 * <ul>
 *   <li>{@code harness}: the peer load driver's keys, {@code key} and the index in 8 decimal digits (11 bytes:
 *       every key shares its first 7 bytes, so a comparison always walks past them);
 *   <li>{@code random16}: 16 random bytes (the {@link SortedMapBenchmark}'s keys);
 *   <li>{@code path}: a 26-byte hierarchical key, {@code tenant-0007/item-} and the index in 9 digits (long shared
 *       prefixes, the case a per-node prefix is for).
 * </ul>
 *
 * <ul>
 *   <li>{@code get}: a lookup of a present key in the published version;
 *   <li>{@code putBatched}: {@value #BATCH} overwrites of present keys through {@link BPlusTree#batch}, the batch
 *       published every {@value #PUBLISH_EVERY} invocations, as {@code KvStateMachine} does at 64 batches between
 *       publications (part 12): results per put;
 *   <li>{@code insertRemoveBatched}: a fresh key inserted and deleted again in the open batch (splits and merges;
 *       results per operation).
 * </ul>
 *
 * <pre>java -jar jmh/target/benchmarks.jar TreeSearchBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TreeSearchBenchmark {
    static final int BATCH = 32;
    static final int PUBLISH_EVERY = 64;
    private static final int FRESH = 1 << 12;
    private static final int VALUES = 256;

    @Param({"harness", "random16", "path"})
    String keyKind;

    @Param({"10000", "1000000"})
    int keys;

    private BPlusTree tree;
    private byte[][] present;
    private byte[][] fresh;
    private byte[][] values;
    private SplittableRandom random;
    private int invocations;
    private int nextFresh;

    @Setup(Level.Trial)
    public void setUp() {
        SplittableRandom data = new SplittableRandom(42);
        present = new byte[keys][];
        for (int i = 0; i < keys; i++) present[i] = key(keyKind, i, data);
        fresh = new byte[FRESH][];
        // Fresh keys fall between present ones (odd indices of a doubled space for the ordered kinds).
        for (int i = 0; i < FRESH; i++) fresh[i] = freshKey(keyKind, i, data);
        values = new byte[VALUES][];
        for (int i = 0; i < VALUES; i++) {
            values[i] = new byte[64];
            data.nextBytes(values[i]);
        }
        tree = new BPlusTree();
        SplittableRandom order = new SplittableRandom(7);
        int[] shuffled = new int[keys];
        for (int i = 0; i < keys; i++) shuffled[i] = i;
        for (int i = keys - 1; i > 0; i--) {
            int j = order.nextInt(i + 1);
            int t = shuffled[i];
            shuffled[i] = shuffled[j];
            shuffled[j] = t;
        }
        // Inserted in random order (as a load's first puts are), each with its own value array.
        for (int i : shuffled) tree.batch().put(present[i].clone(), values[i & (VALUES - 1)].clone());
        tree.publish();
        random = new SplittableRandom(4);
    }

    static byte[] key(String kind, int index, SplittableRandom data) {
        return switch (kind) {
            case "harness" -> String.format("key%08d", index * 2).getBytes(StandardCharsets.US_ASCII);
            case "random16" -> {
                byte[] k = new byte[16];
                data.nextBytes(k);
                yield k;
            }
            case "path" -> String.format("tenant-0007/item-%09d", index * 2).getBytes(StandardCharsets.US_ASCII);
            default -> throw new IllegalArgumentException("unknown key kind " + kind + " (harness, random16, path)");
        };
    }

    private byte[] freshKey(String kind, int i, SplittableRandom data) {
        int index = (int) ((long) i * keys / FRESH);
        return switch (kind) {
            case "harness" -> String.format("key%08d", index * 2 + 1).getBytes(StandardCharsets.US_ASCII);
            case "path" -> String.format("tenant-0007/item-%09d", index * 2 + 1).getBytes(StandardCharsets.US_ASCII);
            default -> key(kind, i, data);
        };
    }

    @Benchmark
    public byte[] get() {
        return tree.get(present[random.nextInt(keys)]);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Object putBatched() {
        TreeWriter batch = tree.batch();
        Object last = null;
        for (int i = 0; i < BATCH; i++) {
            // A fresh key array per put, as the KV decoder makes one: the tree keeps its own on an overwrite.
            byte[] key = present[random.nextInt(keys)].clone();
            last = batch.put(key, values[random.nextInt(VALUES)]);
        }
        if (++invocations % PUBLISH_EVERY == 0) tree.publish();
        return last;
    }

    @Benchmark
    @OperationsPerInvocation(2)
    public Object insertRemoveBatched() {
        TreeWriter batch = tree.batch();
        byte[] key = fresh[nextFresh++ & (FRESH - 1)];
        batch.put(key, values[0]);
        Object previous = batch.remove(key);
        if (++invocations % (PUBLISH_EVERY * BATCH / 2) == 0) tree.publish();
        return previous;
    }
}
