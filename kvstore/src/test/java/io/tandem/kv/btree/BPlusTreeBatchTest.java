package io.tandem.kv.btree;

import static io.tandem.kv.btree.TreeTesting.assertSameContent;
import static io.tandem.kv.btree.TreeTesting.keyPool;
import static io.tandem.kv.btree.TreeTesting.newModel;
import static io.tandem.kv.btree.TreeTesting.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Batches ({@link BPlusTree#batch}): a batch changes the nodes it made in place, so the tests check
 * above all that no published version ever changes, whatever the batch does after it.
 */
class BPlusTreeBatchTest {

    /**
     * Random operations through batches published at random points, against a model; every
     * published version is kept with a copy of its content and checked again at the end, so an
     * in-place change of a node that a published version reaches would show.
     */
    @ParameterizedTest(name = "order {0}, {1} keys, seed {2}")
    @CsvSource({"3, 150, 1", "4, 300, 2", "5, 300, 3", "8, 400, 4", "64, 3000, 5"})
    void batchesMatchTheModelAndNeverChangeAPublishedVersion(int order, int keySpace, long seed) {
        Random random = new Random(seed);
        List<byte[]> keys = keyPool(random, Math.min(keySpace, 4000));
        BPlusTree tree = new BPlusTree(order);
        TreeMap<byte[], byte[]> model = newModel();
        List<TreeSnapshot> published = new ArrayList<>();
        List<TreeMap<byte[], byte[]>> publishedContent = new ArrayList<>();
        for (int op = 0; op < 8_000; op++) {
            boolean growing = (op / 1_000) % 2 == 0;
            byte[] key = keys.get(random.nextInt(keys.size()));
            int dice = random.nextInt(100);
            TreeWriter w = tree.batch();
            String step = "op " + op;
            if (dice < (growing ? 60 : 15)) {
                byte[] v = value(op);
                assertThat(w.put(key, v)).as(step + " put").isEqualTo(model.put(key, v));
            } else if (dice < 75) {
                assertThat(w.remove(key)).as(step + " remove").isEqualTo(model.remove(key));
            } else if (dice < 85) {
                byte[] current = model.get(key);
                byte[] update = random.nextBoolean() ? value(-op) : null;
                assertThat(w.compareAndSet(key, current, update).applied()).as(step + " cas").isTrue();
                if (update != null) model.put(key, update);
                else model.remove(key);
            } else {
                assertThat(w.get(key)).as(step + " get in the batch").isEqualTo(model.get(key));
            }
            assertThat(w.size()).as(step + " size in the batch").isEqualTo(model.size());
            if (random.nextInt(12) == 0) {
                tree.publish();
                assertThat(tree.batchOpen()).isFalse();
                TreeSnapshot snapshot = tree.snapshot();
                snapshot.verifyStructure();
                assertSameContent(snapshot, model);
                if (published.size() < 200) {
                    published.add(snapshot);
                    publishedContent.add(new TreeMap<>(model));
                }
            }
        }
        tree.publish();
        assertSameContent(tree.snapshot(), model);
        for (int i = 0; i < published.size(); i++) {
            published.get(i).verifyStructure();
            assertSameContent(published.get(i), publishedContent.get(i));
        }
    }

    @Test
    void readersSeeABatchOnlyOncePublished() {
        BPlusTree tree = new BPlusTree(4);
        for (int i = 0; i < 50; i++) tree.put(new byte[] {(byte) i}, value(i));
        TreeSnapshot before = tree.snapshot();
        TreeWriter w = tree.batch();
        w.put(new byte[] {1}, value(100));
        w.put(new byte[] {1}, value(101)); // the second write changes the batch's own leaf in place
        w.remove(new byte[] {2});
        assertThat(tree.batch()).isSameAs(w);
        assertThat(tree.get(new byte[] {1})).isEqualTo(value(1));
        assertThat(tree.snapshot()).isSameAs(before);
        tree.publish();
        assertThat(tree.get(new byte[] {1})).isEqualTo(value(101));
        assertThat(tree.get(new byte[] {2})).isNull();
        assertThat(before.get(new byte[] {1})).isEqualTo(value(1));
        assertThat(before.get(new byte[] {2})).isEqualTo(value(2));
        tree.publish(); // nothing open: nothing happens
        assertThat(tree.size()).isEqualTo(49);
    }

    @Test
    void anOrdinaryWriteOfTheSameThreadPublishesTheBatchFirst() {
        BPlusTree tree = new BPlusTree(4);
        tree.batch().put(new byte[] {1}, value(1));
        tree.put(new byte[] {2}, value(2));
        assertThat(tree.batchOpen()).isFalse();
        assertThat(tree.size()).isEqualTo(2);
        assertThat(tree.get(new byte[] {1})).isEqualTo(value(1));
    }

    @Test
    void anotherThreadCanNeitherWriteNorPublishTheBatch() {
        BPlusTree tree = new BPlusTree(4);
        tree.batch().put(new byte[] {1}, value(1));
        CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
            tree.publish(); // not its batch: nothing happens
            assertThat(tree.batchOpen()).isFalse();
            assertThatThrownBy(() -> tree.put(new byte[] {2}, value(2))).isInstanceOf(ConcurrentModificationException.class);
            assertThatThrownBy(tree::batch).isInstanceOf(ConcurrentModificationException.class);
        });
        other.join();
        assertThat(tree.get(new byte[] {1})).isNull();
        assertThatThrownBy(() -> tree.putConcurrent(0, new byte[] {3}, value(3))).isInstanceOf(IllegalStateException.class);
        tree.publish();
        assertThat(tree.size()).isEqualTo(1);
    }

    /**
     * A batch may now stay open between a state machine's batches (issue 25, publication on demand): when its
     * thread ends (an execution thread replaced), the thread that writes next takes it over, with its writes,
     * instead of failing; while the owner lives, nobody else can.
     */
    @Test
    void aBatchWhoseThreadEndedIsTakenOverWithItsWrites() throws Exception {
        BPlusTree tree = new BPlusTree(4);
        Thread first = new Thread(() -> {
            for (int i = 0; i < 50; i++) tree.batch().put(new byte[] {(byte) i}, value(i));
        });
        first.start();
        first.join();
        assertThat(tree.size()).isZero(); // never published
        assertThat(tree.batchOpen()).isTrue(); // the ended thread's batch is this thread's now
        tree.batch().put(new byte[] {(byte) 50}, value(50));
        tree.publish();
        assertThat(tree.size()).isEqualTo(51);
        for (int i = 0; i <= 50; i++) assertThat(tree.get(new byte[] {(byte) i})).isEqualTo(value(i));
        // An ended thread's open batch does not block an ordinary write either: it is published first.
        Thread second = new Thread(() -> tree.batch().put(new byte[] {(byte) 60}, value(60)));
        second.start();
        second.join();
        tree.put(new byte[] {(byte) 61}, value(61));
        assertThat(tree.size()).isEqualTo(53);
    }
}
