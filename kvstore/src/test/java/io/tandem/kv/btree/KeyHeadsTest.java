package io.tandem.kv.btree;

import static io.tandem.kv.btree.TreeTesting.assertSameContent;
import static io.tandem.kv.btree.TreeTesting.newModel;
import static io.tandem.kv.btree.TreeTesting.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.kv.btree.Node.Leaf;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The nodes' key heads (issue 25, part 15): a search reads a node's prefix bytes, then compares 4-byte heads and
 * reads a key only on equal heads. The search must answer exactly as a plain binary search over the keys does, for
 * keys with long shared prefixes, the empty key, keys that differ only in length (trailing zero bytes: equal
 * heads), bytes on both sides of the signed/unsigned boundary, and keys that leave a node's prefix inside it or
 * end before it. The trees' invariant check ({@link TreeSnapshot#verifyStructure}) checks every node's prefix and
 * heads against its keys.
 */
class KeyHeadsTest {
    // Also: puts of a key given as a range of a larger buffer (TreeWriter.put(buffer, from, to, value)).
    private static final byte[] ALPHABET = {0x00, 0x01, 0x2F, 0x41, 0x7F, (byte) 0x80, (byte) 0xFE, (byte) 0xFF};

    /** Keys from a few shared stems (nested, so some stems are prefixes of others) and short random tails. */
    private static List<byte[]> prefixedPool(Random random, int count) {
        List<byte[]> stems = new ArrayList<>();
        stems.add(new byte[0]);
        for (int s = 0; s < 5; s++) {
            byte[] base = s > 0 && random.nextBoolean() ? stems.get(random.nextInt(stems.size())) : new byte[0];
            byte[] stem = Arrays.copyOf(base, base.length + 1 + random.nextInt(9));
            for (int i = base.length; i < stem.length; i++) stem[i] = ALPHABET[random.nextInt(ALPHABET.length)];
            stems.add(stem);
        }
        TreeSet<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
        keys.add(new byte[0]);
        keys.addAll(stems);
        while (keys.size() < count) {
            byte[] stem = stems.get(random.nextInt(stems.size()));
            byte[] key = Arrays.copyOf(stem, stem.length + random.nextInt(7));
            for (int i = stem.length; i < key.length; i++) key[i] = ALPHABET[random.nextInt(ALPHABET.length)];
            keys.add(key);
            // The same key with trailing zero bytes: equal heads, different keys.
            if (random.nextInt(4) == 0) keys.add(Arrays.copyOf(key, key.length + 1 + random.nextInt(3)));
        }
        List<byte[]> pool = new ArrayList<>(keys);
        Collections.shuffle(pool, random);
        return pool.subList(0, count);
    }

    /** The reference: a plain binary search over the keys. */
    private static int plainSearch(byte[][] keys, byte[] key) {
        int low = 0;
        int high = keys.length - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            int c = Arrays.compareUnsigned(keys[mid], key);
            if (c < 0) low = mid + 1;
            else if (c > 0) high = mid - 1;
            else return mid;
        }
        return -(low + 1);
    }

    @Test
    void searchAnswersAsAPlainBinarySearchForAnyValidPrefix() {
        Random random = new Random(11);
        for (int round = 0; round < 3_000; round++) {
            List<byte[]> pool = prefixedPool(random, 2 + random.nextInt(40));
            // A node's keys: sometimes the pool itself, sometimes a run of keys that share a long prefix.
            TreeSet<byte[]> set = new TreeSet<>(Arrays::compareUnsigned);
            if (random.nextBoolean()) {
                set.addAll(pool.subList(0, 1 + random.nextInt(pool.size() - 1)));
            } else {
                byte[] stem = pool.get(random.nextInt(pool.size()));
                for (byte[] k : pool) if (k.length >= stem.length && Arrays.mismatch(k, 0, stem.length, stem, 0, stem.length) < 0) set.add(k);
            }
            byte[][] keys = set.toArray(new byte[0][]);
            int longest = Node.commonPrefix(keys);
            // Any prefix the keys share is valid (the tree keeps a shorter one after removals and splits).
            int prefix = random.nextInt(longest + 1);
            Leaf leaf = new Leaf(keys, prefix, Node.heads(keys, prefix), new byte[keys.length][], 1);
            List<byte[]> probes = new ArrayList<>(pool);
            probes.addAll(prefixedPool(random, 20));
            for (byte[] k : keys) {
                probes.add(Arrays.copyOf(k, k.length + 1)); // one zero byte longer
                if (k.length > 0) probes.add(Arrays.copyOf(k, k.length - 1)); // one byte shorter
                if (k.length > 0) {
                    byte[] up = k.clone();
                    up[up.length - 1] = (byte) (up[up.length - 1] + 1); // past the signed/unsigned boundary too
                    probes.add(up);
                }
            }
            for (byte[] probe : probes) {
                assertThat(Node.search(leaf, probe))
                        .as("round %d, prefix %d of %d, probe %s in %s", round, prefix, longest, Entry.preview(probe), Arrays.deepToString(keys))
                        .isEqualTo(plainSearch(keys, probe));
            }
        }
    }

    @Test
    void headsOrderAsTheKeysDoAmongKeysWithTheSamePrefix() {
        Random random = new Random(12);
        for (int round = 0; round < 20_000; round++) {
            List<byte[]> pair = prefixedPool(random, 2);
            byte[] a = pair.get(0);
            byte[] b = pair.get(1);
            if (Arrays.compareUnsigned(a, b) > 0) {
                byte[] t = a;
                a = b;
                b = t;
            }
            int shared = Node.commonPrefix(new byte[][] {a, b});
            int prefix = random.nextInt(shared + 1);
            assertThat(Node.head(a, prefix)).as("%s < %s from %d", Entry.preview(a), Entry.preview(b), prefix)
                    .isLessThanOrEqualTo(Node.head(b, prefix));
        }
        // Unsigned bytes: 0x80 after 0x7F; missing bytes count as zeros, so "A" and "A\0" have equal heads.
        assertThat(Node.head(new byte[] {(byte) 0x80}, 0)).isGreaterThan(Node.head(new byte[] {0x7F, (byte) 0xFF}, 0));
        assertThat(Node.head(new byte[] {0x41}, 0)).isEqualTo(Node.head(new byte[] {0x41, 0x00}, 0));
        assertThat(Node.head(new byte[0], 0)).isEqualTo(Node.head(new byte[] {0, 0, 0, 0, 0}, 0)).isEqualTo(Integer.MIN_VALUE);
    }

    /** Random operations at small and default orders over keys with shared prefixes, every version verified. */
    @ParameterizedTest(name = "order {0}, {1} keys, seed {2}")
    @CsvSource({"3, 200, 21", "4, 400, 22", "8, 600, 23", "64, 4000, 24"})
    void treesOfPrefixedKeysMatchTheModel(int order, int keySpace, long seed) throws IOException {
        Random random = new Random(seed);
        List<byte[]> keys = prefixedPool(random, keySpace);
        BPlusTree tree = new BPlusTree(order);
        TreeMap<byte[], byte[]> model = newModel();
        for (int op = 0; op < 10_000; op++) {
            boolean growing = (op / 1_250) % 2 == 0;
            byte[] key = keys.get(random.nextInt(keys.size()));
            int dice = random.nextInt(100);
            boolean batched = (op / 500) % 3 == 1; // runs of batch writes (nodes changed in place) between plain ones
            if (!batched) tree.publish(); // a plain read sees the published version: end the batch run first
            TreeWriter w = batched ? tree.batch() : null;
            String step = "op " + op + " (order " + order + ", seed " + seed + ")";
            if (dice < (growing ? 65 : 15)) {
                byte[] v = value(op);
                byte[] previous;
                if (w != null && random.nextBoolean()) {
                    // The key as a range of a larger buffer (part 15), which is scribbled over afterwards: the tree
                    // must have kept its own key array or a copy, never the buffer.
                    int before = random.nextInt(5);
                    byte[] buffer = new byte[before + key.length + random.nextInt(5)];
                    random.nextBytes(buffer);
                    System.arraycopy(key, 0, buffer, before, key.length);
                    previous = w.put(buffer, before, before + key.length, v);
                    Arrays.fill(buffer, (byte) 0x7F);
                } else {
                    previous = w != null ? w.put(key, v) : tree.put(key, v);
                }
                assertThat(previous).as(step + " put").isEqualTo(model.put(key, v));
            } else if (dice < 85) {
                assertThat(w != null ? w.remove(key) : tree.remove(key)).as(step + " remove").isEqualTo(model.remove(key));
            } else {
                assertThat(w != null ? w.get(key) : tree.get(key)).as(step + " get").isEqualTo(model.get(key));
            }
            if (!batched || random.nextInt(10) == 0) {
                tree.publish();
                tree.snapshot().verifyStructure();
                assertThat(tree.size()).as(step).isEqualTo(model.size());
            }
            if (op % 499 == 0) {
                tree.publish();
                assertSameContent(tree.snapshot(), model);
                for (byte[] probe : keys) assertThat(tree.get(probe)).as(step + " get " + Entry.preview(probe)).isEqualTo(model.get(probe));
            }
        }
        tree.publish();
        assertSameContent(tree.snapshot(), model);
        // Restored trees (bulk-loaded, and node for node from a shaped snapshot) carry valid heads too.
        for (boolean shaped : new boolean[] {false, true}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            if (shaped) tree.writeShapedSnapshot(out);
            else tree.writeSnapshot(out);
            BPlusTree restored = new BPlusTree(order);
            restored.restore(new ByteArrayInputStream(out.toByteArray()));
            restored.snapshot().verifyStructure();
            assertSameContent(restored.snapshot(), model);
            for (byte[] probe : keys) assertThat(restored.get(probe)).isEqualTo(model.get(probe));
        }
    }
}
