package io.tandem.kv.btree;

import static io.tandem.kv.btree.Entry.preview;

import io.tandem.kv.btree.Node.Internal;
import io.tandem.kv.btree.Node.Leaf;
import java.util.ArrayList;
import java.util.List;

/** The structural rules of a tree version, checked by a full walk; see {@link TreeSnapshot#verifyStructure()}. */
final class Invariants {
    private final TreeSnapshot tree;
    private final int maxLeafEntries;
    private final int minLeafEntries;
    private final int minChildren;
    private final List<Leaf> leavesInOrder = new ArrayList<>();

    private Invariants(TreeSnapshot tree) {
        this.tree = tree;
        int order = tree.order();
        this.maxLeafEntries = order - 1;
        this.minLeafEntries = order / 2;
        this.minChildren = (order + 1) / 2;
    }

    static void verify(TreeSnapshot tree) {
        new Invariants(tree).run();
    }

    private void run() {
        if (tree.height() < 1) fail("height " + tree.height());
        long entries = walk(tree.root(), 0, null, null, true);
        if (entries != tree.size()) fail("size is " + tree.size() + " but the leaves hold " + entries + " entries");
        checkLeafChain();
    }

    /** Returns the number of entries below {@code node}; keys must lie in {@code [lower, upper)}. */
    private long walk(Node node, int depth, byte[] lower, byte[] upper, boolean isRoot) {
        checkKeys(node.keys, lower, upper, depth);
        checkHeads(node, depth);
        return switch (node) {
            case Leaf leaf -> {
                if (depth != tree.height() - 1) fail("leaf at depth " + depth + " in a tree of height " + tree.height());
                if (leaf.values.length != leaf.keys.length) fail("leaf with " + leaf.keys.length + " keys and " + leaf.values.length + " values");
                for (byte[] value : leaf.values) if (value == null) fail("null value at depth " + depth);
                int n = leaf.keys.length;
                if (n > maxLeafEntries || (!isRoot && n < minLeafEntries)) {
                    fail("leaf with " + n + " entries outside [" + minLeafEntries + ", " + maxLeafEntries + "]" + (isRoot ? " (root)" : ""));
                }
                leavesInOrder.add(leaf);
                yield n;
            }
            case Internal internal -> {
                int n = internal.children.length;
                if (n != internal.keys.length + 1) fail("internal node with " + internal.keys.length + " keys and " + n + " children");
                if (n > tree.order() || n < (isRoot ? 2 : minChildren)) {
                    fail("internal node with " + n + " children outside [" + (isRoot ? 2 : minChildren) + ", " + tree.order() + "]"
                            + (isRoot ? " (root)" : ""));
                }
                long sum = 0;
                for (int i = 0; i < n; i++) {
                    Node child = internal.children[i];
                    if (child == null) fail("null child at depth " + depth);
                    sum += walk(child, depth + 1, i == 0 ? lower : internal.keys[i - 1], i == n - 1 ? upper : internal.keys[i], false);
                }
                yield sum;
            }
        };
    }

    private void checkKeys(byte[][] keys, byte[] lower, byte[] upper, int depth) {
        for (int i = 0; i < keys.length; i++) {
            byte[] key = keys[i];
            if (key == null) fail("null key at depth " + depth);
            if (i > 0 && Node.compare(keys[i - 1], key) >= 0) {
                fail("keys not strictly ascending at depth " + depth + ": " + preview(keys[i - 1]) + " then " + preview(key));
            }
            if (lower != null && Node.compare(key, lower) < 0) {
                fail("key " + preview(key) + " at depth " + depth + " below its separator " + preview(lower));
            }
            if (upper != null && Node.compare(key, upper) >= 0) {
                fail("key " + preview(key) + " at depth " + depth + " not below its separator " + preview(upper));
            }
        }
    }

    /** The node's prefix is one its keys share, and each head is its key's (the search relies on both). */
    private void checkHeads(Node node, int depth) {
        byte[][] keys = node.keys;
        if (node.heads == null || node.heads.length != keys.length) {
            fail("node at depth " + depth + " with " + keys.length + " keys and " + (node.heads == null ? "no" : node.heads.length) + " heads");
        }
        if (node.prefix < 0) fail("negative prefix " + node.prefix + " at depth " + depth);
        for (int i = 0; i < keys.length; i++) {
            byte[] key = keys[i];
            if (key.length < node.prefix || java.util.Arrays.mismatch(key, 0, node.prefix, keys[0], 0, node.prefix) >= 0) {
                fail("key " + preview(key) + " at depth " + depth + " does not start with the node's " + node.prefix + "-byte prefix");
            }
            if (node.heads[i] != Node.head(key, node.prefix)) fail("stale head of key " + preview(key) + " at depth " + depth);
        }
    }

    /** The cursor's leaf-to-leaf steps (the tree's "leaf links") must visit exactly the leaves, in order. */
    private void checkLeafChain() {
        Cursor cursor = new Cursor(tree.root(), tree.height(), null);
        for (Leaf leaf : leavesInOrder) {
            for (int i = 0; i < leaf.keys.length; i++) {
                if (!cursor.valid()) fail("the leaf chain ends early");
                if (cursor.key() != leaf.keys[i] || cursor.value() != leaf.values[i]) {
                    fail("the leaf chain is out of step with the tree at key " + preview(leaf.keys[i]));
                }
                cursor.advance();
            }
        }
        if (cursor.valid()) fail("the leaf chain goes past the last leaf");
    }

    private void fail(String problem) {
        throw new IllegalStateException("B+-tree invariant violated: " + problem + " (" + tree + ")");
    }
}
