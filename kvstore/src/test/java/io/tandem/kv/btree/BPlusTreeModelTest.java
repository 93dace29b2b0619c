package io.tandem.kv.btree;

import static io.tandem.kv.btree.TreeTesting.assertSameContent;
import static io.tandem.kv.btree.TreeTesting.entries;
import static io.tandem.kv.btree.TreeTesting.keyPool;
import static io.tandem.kv.btree.TreeTesting.newModel;
import static io.tandem.kv.btree.TreeTesting.range;
import static io.tandem.kv.btree.TreeTesting.value;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Random operation sequences against a {@link TreeMap} with the same unsigned order. Small orders
 * and a few hundred keys make every kind of split, borrow and merge happen at every level; the
 * operation mix swings between growing and shrinking phases so the height rises and falls back to
 * a single leaf. After every operation the structure is verified and the result compared.
 */
class BPlusTreeModelTest {
    private static final int OPERATIONS = 12_000;

    @ParameterizedTest(name = "order {0}, {1} keys, seed {2}")
    @CsvSource({
        "3, 120, 1", "3, 300, 2", "4, 200, 3", "4, 300, 4", "5, 300, 5", "5, 150, 6",
        "6, 300, 7", "7, 300, 8", "8, 400, 9", "16, 500, 10"})
    void randomOperationsMatchTheModel(int order, int keySpace, long seed) {
        Random random = new Random(seed);
        List<byte[]> keys = keyPool(random, keySpace);
        BPlusTree tree = new BPlusTree(order);
        TreeMap<byte[], byte[]> model = newModel();
        int maxHeight = 1;
        boolean returnedToOneLeaf = false;

        for (int op = 0; op < OPERATIONS; op++) {
            // Phases of 1,500 operations alternate between filling most of the key space and
            // draining the tree down to a few keys (deleting keys that are present).
            boolean growing = (op / 1_500) % 2 == 0;
            int insertWeight = growing ? 70 : 10;
            byte[] key = keys.get(random.nextInt(keys.size()));
            int dice = random.nextInt(100);
            if (!growing && dice >= insertWeight && dice < 80 && !model.isEmpty()) {
                byte[] present = model.ceilingKey(key);
                key = present != null ? present : model.firstKey();
            }
            String step = "op " + op + " (order " + order + ", seed " + seed + ")";
            if (dice < insertWeight) {
                byte[] v = value(op);
                assertThat(tree.put(key, v)).as(step + " put").isEqualTo(model.put(key, v));
            } else if (dice < 80) {
                assertThat(tree.remove(key)).as(step + " remove").isEqualTo(model.remove(key));
            } else if (dice < 88) {
                compareAndSet(random, tree, model, key, op, step);
            } else if (dice < 94) {
                assertThat(tree.get(key)).as(step + " get").isEqualTo(model.get(key));
            } else {
                scan(random, tree.snapshot(), model, keys, step);
            }
            TreeSnapshot snapshot = tree.snapshot();
            snapshot.verifyStructure();
            assertThat(snapshot.size()).as(step + " size").isEqualTo(model.size());
            maxHeight = Math.max(maxHeight, snapshot.height());
            if (maxHeight >= 3 && snapshot.height() == 1) returnedToOneLeaf = true;
            if (op % 97 == 0) assertSameContent(snapshot, model);
        }
        assertSameContent(tree.snapshot(), model);
        drainAndCheck(random, tree, model);

        StructureCounters c = tree.structureCounters();
        assertThat(maxHeight).as("height reached").isGreaterThanOrEqualTo(order <= 5 ? 4 : 3);
        assertThat(returnedToOneLeaf).as("the tree shrank back to a single leaf at least once").isTrue();
        assertThat(List.of(c.leafSplits, c.internalSplits, c.rootSplits, c.leafBorrows, c.internalBorrows,
                c.leafMerges, c.internalMerges, c.rootCollapses))
                .as("every kind of structural change happened: %s", c)
                .allSatisfy(count -> assertThat(count).isPositive());
    }

    private static void compareAndSet(Random random, BPlusTree tree, TreeMap<byte[], byte[]> model, byte[] key, int op, String step) {
        byte[] current = model.get(key);
        byte[] expected = switch (random.nextInt(4)) {
            case 0 -> null;
            case 1 -> value(-op); // a value no key ever holds
            default -> current == null ? null : current.clone(); // equal by content, not by identity
        };
        byte[] update = random.nextInt(3) == 0 ? null : value(op);
        CasOutcome outcome = tree.compareAndSet(key, expected, update);
        boolean shouldApply = Arrays.equals(current, expected);
        assertThat(outcome.applied()).as(step + " cas applied").isEqualTo(shouldApply);
        assertThat(outcome.previous()).as(step + " cas previous").isEqualTo(current);
        if (shouldApply) {
            if (update == null) model.remove(key);
            else model.put(key, update);
        }
    }

    private static void scan(Random random, TreeSnapshot snapshot, TreeMap<byte[], byte[]> model, List<byte[]> keys, String step) {
        byte[] from = random.nextInt(5) == 0 ? null : keys.get(random.nextInt(keys.size()));
        byte[] to = random.nextInt(5) == 0 ? null : keys.get(random.nextInt(keys.size()));
        int limit = 1 + random.nextInt(25);
        List<Entry> expected = entries(range(model, from, to));
        ScanPage first = snapshot.scan(from, to, limit);
        assertThat(first.entries()).as(step + " scan page").containsExactlyElementsOf(expected.subList(0, Math.min(limit, expected.size())));
        assertThat(first.hasMore()).as(step + " scan hasMore").isEqualTo(expected.size() > limit);
        if (first.hasMore()) assertThat(first.nextFrom()).isEqualTo(expected.get(limit).key());
        // Paging through the rest with the continuation key yields the whole range exactly once.
        List<Entry> all = new ArrayList<>(first.entries());
        for (ScanPage page = first; page.hasMore(); ) {
            page = snapshot.scan(page.nextFrom(), to, limit);
            all.addAll(page.entries());
        }
        assertThat(all).as(step + " paged scan").containsExactlyElementsOf(expected);
    }

    /** Deletes everything in random order, checking as it goes, down to the empty single leaf. */
    private static void drainAndCheck(Random random, BPlusTree tree, TreeMap<byte[], byte[]> model) {
        List<byte[]> remaining = new ArrayList<>(model.keySet());
        java.util.Collections.shuffle(remaining, random);
        for (byte[] key : remaining) {
            assertThat(tree.remove(key)).isEqualTo(model.remove(key));
            tree.snapshot().verifyStructure();
        }
        assertThat(tree.size()).isZero();
        assertThat(tree.snapshot().height()).isEqualTo(1);
        assertThat(tree.scan(null, null, 10).entries()).isEmpty();
    }
}
