package io.tandem.kv.btree;

import static io.tandem.kv.btree.TreeTesting.assertSameContent;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class BPlusTreeTest {

    @Test
    void emptyTree() {
        BPlusTree tree = new BPlusTree();
        assertThat(tree.order()).isEqualTo(BPlusTree.DEFAULT_ORDER);
        assertThat(tree.size()).isZero();
        assertThat(tree.get(new byte[0])).isNull();
        assertThat(tree.remove(new byte[] {1})).isNull();
        assertThat(tree.scan(null, null, 5)).isEqualTo(new ScanPage(List.of(), null));
        assertThat(tree.snapshot().height()).isEqualTo(1);
        tree.snapshot().verifyStructure();
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> new BPlusTree(2)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("order");
        assertThatThrownBy(() -> new BPlusTree(BPlusTree.MAX_ORDER + 1)).isInstanceOf(IllegalArgumentException.class);
        BPlusTree tree = new BPlusTree(4);
        assertThatThrownBy(() -> tree.put(null, new byte[0])).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> tree.put(new byte[0], null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> tree.get(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> tree.scan(null, null, 0)).isInstanceOf(IllegalArgumentException.class);
        // A failed write leaves the tree writable.
        tree.put(new byte[] {1}, value(1));
        assertThat(tree.size()).isEqualTo(1);
    }

    @Test
    void ordersKeysAsUnsignedBytesWithPrefixesFirst() {
        BPlusTree tree = new BPlusTree(3);
        byte[][] sorted = {{}, {0x00}, {0x00, 0x00}, {0x01}, {0x7F}, {(byte) 0x80}, {(byte) 0x80, 0x00}, {(byte) 0xFF}, {(byte) 0xFF, (byte) 0xFF}};
        for (int i = sorted.length - 1; i >= 0; i--) tree.put(sorted[i], value(i));
        List<byte[]> keys = new ArrayList<>();
        tree.snapshot().forEach(null, null, (k, v) -> keys.add(k));
        assertThat(keys).containsExactly(sorted);
    }

    @Test
    void scanBoundsAndContinuation() {
        BPlusTree tree = new BPlusTree(4);
        for (int i = 0; i < 50; i += 2) tree.put(new byte[] {(byte) i}, value(i));
        ScanPage page = tree.scan(new byte[] {5}, new byte[] {15}, 3);
        assertThat(page.entries()).extracting(e -> (int) e.key()[0]).containsExactly(6, 8, 10);
        assertThat(page.nextFrom()).containsExactly(12);
        ScanPage rest = tree.scan(page.nextFrom(), new byte[] {15}, 3);
        assertThat(rest.entries()).extracting(e -> (int) e.key()[0]).containsExactly(12, 14);
        assertThat(rest.hasMore()).isFalse();
        // An exact fit ends with no continuation, and an empty or inverted range is empty.
        assertThat(tree.scan(new byte[] {6}, new byte[] {12}, 3).hasMore()).isFalse();
        assertThat(tree.scan(new byte[] {20}, new byte[] {10}, 3).entries()).isEmpty();
        assertThat(tree.scan(new byte[] {100}, null, 3).entries()).isEmpty();
        // forEach stops when the visitor says so and reports how many it took.
        assertThat(tree.snapshot().forEach(null, null, (k, v) -> k[0] < 10)).isEqualTo(5);
    }

    @Test
    void manyRandomSixteenByteKeysAtDefaultOrder() {
        Random random = new Random(7);
        BPlusTree tree = new BPlusTree();
        TreeMap<byte[], byte[]> model = newModel();
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 60_000; i++) {
            byte[] key = new byte[16];
            random.nextBytes(key);
            keys.add(key);
            assertThat(tree.put(key, value(i))).isEqualTo(model.put(key, value(i)));
        }
        tree.snapshot().verifyStructure();
        assertSameContent(tree.snapshot(), model);
        assertThat(tree.snapshot().height()).isEqualTo(3); // about 1,400 leaves under 32 internal nodes
        java.util.Collections.shuffle(keys, random);
        for (int i = 0; i < keys.size(); i++) {
            assertThat(tree.remove(keys.get(i))).isEqualTo(model.remove(keys.get(i)));
            if (i % 5_000 == 0) tree.snapshot().verifyStructure();
        }
        assertThat(tree.size()).isZero();
        assertThat(tree.snapshot().height()).isEqualTo(1);
    }

    @Test
    void atomicallyPublishesAllChangesOnceOrNothing() {
        BPlusTree tree = new BPlusTree(3);
        for (int i = 0; i < 20; i++) tree.put(new byte[] {(byte) i}, value(i));
        TreeSnapshot before = tree.snapshot();
        tree.atomically(w -> {
            for (int i = 0; i < 20; i += 2) w.remove(new byte[] {(byte) i});
            w.put(new byte[] {100}, value(100));
            assertThat(w.size()).isEqualTo(11);
            assertThat(w.get(new byte[] {100})).isEqualTo(value(100)); // sees its own writes
            assertThat(tree.get(new byte[] {100})).isNull();           // readers do not, yet
            assertThat(w.compareAndSet(new byte[] {1}, value(1), value(-1)).applied()).isTrue();
        });
        assertThat(tree.size()).isEqualTo(11);
        assertThat(tree.get(new byte[] {1})).isEqualTo(value(-1));
        assertThat(before.size()).isEqualTo(20);

        TreeSnapshot afterFirst = tree.snapshot();
        assertThatThrownBy(() -> tree.atomically(w -> {
            w.put(new byte[] {101}, value(101));
            w.remove(new byte[] {1});
            throw new IllegalStateException("abandon");
        })).hasMessage("abandon");
        assertThat(tree.snapshot()).isSameAs(afterFirst);
        assertThat(tree.get(new byte[] {101})).isNull();
        tree.snapshot().verifyStructure();
        tree.put(new byte[] {102}, value(102)); // still writable
        assertThat(tree.size()).isEqualTo(12);
    }

    @Test
    void writesThatDoNotChangeAnythingPublishNothing() {
        BPlusTree tree = new BPlusTree(4);
        tree.put(new byte[] {1}, value(1));
        TreeSnapshot before = tree.snapshot();
        tree.remove(new byte[] {2});
        tree.compareAndSet(new byte[] {1}, value(2), value(3));
        tree.atomically(w -> w.get(new byte[] {1}));
        assertThat(tree.snapshot()).isSameAs(before);
    }

    @Test
    void nestedAndLeakedWritersAreRefused() {
        BPlusTree tree = new BPlusTree(4);
        AtomicReference<TreeWriter> leaked = new AtomicReference<>();
        assertThatThrownBy(() -> tree.atomically(w -> {
            leaked.set(w);
            tree.put(new byte[] {1}, value(1));
        })).isInstanceOf(ConcurrentModificationException.class).hasMessageContaining("one thread at a time");
        assertThatThrownBy(() -> leaked.get().put(new byte[] {2}, value(2)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no longer open");
        assertThat(tree.size()).isZero();
    }

    @Test
    void aSecondWriterThreadFailsFastInsteadOfLosingUpdates() throws Exception {
        BPlusTree tree = new BPlusTree(4);
        CountDownLatch insideWrite = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> tree.atomically(w -> {
            w.put(new byte[] {1}, value(1));
            insideWrite.countDown();
            try {
                if (!release.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("never released");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }));
        assertThat(insideWrite.await(30, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> tree.put(new byte[] {2}, value(2))).isInstanceOf(ConcurrentModificationException.class);
        assertThat(tree.get(new byte[] {1})).isNull(); // not published while the first write is open
        release.countDown();
        first.get(30, TimeUnit.SECONDS);
        assertThat(tree.get(new byte[] {1})).isEqualTo(value(1));
        assertThat(tree.get(new byte[] {2})).isNull();
    }

    @Test
    void statsDescribeTheShape() {
        BPlusTree tree = new BPlusTree(5);
        for (int i = 0; i < 100; i++) tree.put(new byte[] {(byte) i, 0}, new byte[3]);
        TreeStats stats = tree.snapshot().stats();
        assertThat(stats.entries()).isEqualTo(100);
        assertThat(stats.keyBytes()).isEqualTo(200);
        assertThat(stats.valueBytes()).isEqualTo(300);
        assertThat(stats.height()).isEqualTo(tree.snapshot().height());
        assertThat(stats.leafFill()).isBetween(0.5, 1.0);
        assertThat(stats.leaves()).isBetween(25L, 50L);
    }
}
