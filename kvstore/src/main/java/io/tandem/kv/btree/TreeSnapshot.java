package io.tandem.kv.btree;

import io.tandem.kv.btree.Node.Internal;
import io.tandem.kv.btree.Node.Leaf;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One immutable version of a {@link BPlusTree}: a root, the entry count and the height. Safe to use
 * from any number of threads while the writer goes on producing newer versions; it never changes
 * and holds on to no lock, so keeping one costs only the memory of the nodes it alone still
 * references.
 */
public final class TreeSnapshot {
    private final Node root;
    private final int size;
    private final int height;
    private final int order;

    TreeSnapshot(Node root, int size, int height, int order) {
        this.root = root;
        this.size = size;
        this.height = height;
        this.order = order;
    }

    static TreeSnapshot empty(int order) {
        return new TreeSnapshot(Leaf.EMPTY, 0, 1, order);
    }

    Node root() {
        return root;
    }

    /** Number of entries. */
    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Levels including the leaf level: 1 while the whole tree is one leaf. */
    public int height() {
        return height;
    }

    /** Maximum children of an internal node; a leaf holds at most {@code order - 1} entries. */
    public int order() {
        return order;
    }

    /** The value of {@code key}, or {@code null}. The returned array must not be modified. */
    public byte[] get(byte[] key) {
        Objects.requireNonNull(key, "key");
        Node node = root;
        while (node instanceof Internal internal) node = internal.children[Node.childIndex(internal, key)];
        Leaf leaf = (Leaf) node;
        int i = Node.search(leaf, key);
        return i >= 0 ? leaf.values[i] : null;
    }

    public boolean containsKey(byte[] key) {
        return get(key) != null;
    }

    /**
     * Up to {@code limit} entries with {@code from <= key < to}, in key order.
     *
     * @param from inclusive lower bound, {@code null} for the first key
     * @param to   exclusive upper bound, {@code null} for no bound
     * @return the page; continue with {@code scan(page.nextFrom(), to, limit)} while it has more
     */
    public ScanPage scan(byte[] from, byte[] to, int limit) {
        if (limit <= 0) throw new IllegalArgumentException("limit must be positive: " + limit);
        List<Entry> entries = new ArrayList<>(Math.min(limit, 256));
        Cursor cursor = new Cursor(root, height, from);
        while (cursor.valid() && (to == null || Node.compare(cursor.key(), to) < 0)) {
            if (entries.size() == limit) return new ScanPage(entries, cursor.key());
            entries.add(new Entry(cursor.key(), cursor.value()));
            cursor.advance();
        }
        return new ScanPage(entries, null);
    }

    /**
     * Visits the entries with {@code from <= key < to} in key order until the visitor returns
     * {@code false}. Allocates nothing per entry.
     *
     * @return the number of entries for which the visitor returned {@code true}
     */
    public long forEach(byte[] from, byte[] to, RangeVisitor visitor) {
        Objects.requireNonNull(visitor, "visitor");
        long accepted = 0;
        Cursor cursor = new Cursor(root, height, from);
        while (cursor.valid() && (to == null || Node.compare(cursor.key(), to) < 0)) {
            if (!visitor.visit(cursor.key(), cursor.value())) break;
            accepted++;
            cursor.advance();
        }
        return accepted;
    }

    /**
     * Streams every entry in key order in the snapshot format ({@link SnapshotFormat}): a format
     * version, the count, the entries and a CRC32C. Flushes but does not close {@code out}.
     */
    public void writeTo(OutputStream out) throws IOException {
        SnapshotFormat.write(this, out);
    }

    /**
     * Walks the whole tree and checks every structural rule: keys strictly ascending, every key
     * within the bounds of the separators above it, fill bounds per node, all leaves at the same
     * depth, the entry count, and that stepping from leaf to leaf visits every entry in order.
     * O(size); for tests and for debugging replicas.
     *
     * @throws IllegalStateException naming the first violation
     */
    public void verifyStructure() {
        Invariants.verify(this);
    }

    /** Counts nodes and bytes by walking the whole tree: O(size), meant for tools and tests. */
    public TreeStats stats() {
        long[] counts = new long[4]; // leaves, internal nodes, key bytes, value bytes
        countNodes(root, counts);
        long leafCapacity = counts[0] * (order - 1L);
        return new TreeStats(height, counts[0], counts[1], size, counts[2], counts[3],
                leafCapacity == 0 ? 0 : (double) size / leafCapacity);
    }

    private static void countNodes(Node node, long[] counts) {
        switch (node) {
            case Leaf leaf -> {
                counts[0]++;
                for (int i = 0; i < leaf.keys.length; i++) {
                    counts[2] += leaf.keys[i].length;
                    counts[3] += leaf.values[i].length;
                }
            }
            case Internal internal -> {
                counts[1]++;
                for (Node child : internal.children) countNodes(child, counts);
            }
        }
    }

    @Override
    public String toString() {
        return "TreeSnapshot[size=" + size + ", height=" + height + ", order=" + order + "]";
    }
}
