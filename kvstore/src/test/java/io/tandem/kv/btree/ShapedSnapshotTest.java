package io.tandem.kv.btree;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Version 2 snapshots keep the tree's shape (the parallel check's verdicts depend on it); another order bulk-loads. */
class ShapedSnapshotTest {
    private static byte[] key(long k) {
        return ByteBuffer.allocate(8).putLong(k).array();
    }

    private static byte[] bytes(BPlusTree t) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        t.writeShapedSnapshot(out);
        return out.toByteArray();
    }

    @Test
    void restoreRebuildsTheSameNodesForTheSameOrder() throws IOException {
        BPlusTree t = new BPlusTree(5);
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < 5_000; i++) {
            if (r.nextBoolean()) t.put(key(r.nextLong(2_000)), new byte[] {(byte) i});
            else t.remove(key(r.nextLong(2_000)));
        }
        byte[] image = bytes(t);
        BPlusTree same = new BPlusTree(5);
        same.restore(new ByteArrayInputStream(image));
        assertThat(bytes(same)).isEqualTo(image);
        same.snapshot().verifyStructure();
        assertThat(same.snapshot().stats().toString()).isEqualTo(t.snapshot().stats().toString());
        for (long k = 0; k < 2_000; k++) assertThat(same.leafOf(key(k))).usingRecursiveComparison().isEqualTo(t.leafOf(key(k)));

        BPlusTree other = new BPlusTree(8);
        other.restore(new ByteArrayInputStream(image));
        other.snapshot().verifyStructure();
        assertThat(other.size()).isEqualTo(t.size());
    }
}
