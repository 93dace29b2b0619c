package io.tandem.kv.btree;

import java.util.Arrays;

/**
 * A tree node. Nodes are immutable once built: a write copies the nodes on its root-to-leaf path
 * and shares everything else with the previous version, which is what lets readers keep using an
 * old root while the writer builds a new one. Arrays are sized exactly to their contents.
 *
 * <p>Internal node: {@code children.length == keys.length + 1}; child {@code i} holds the keys
 * {@code k} with {@code keys[i-1] <= k < keys[i]} (the separators may be keys that were since
 * deleted; they only have to bound the subtrees).
 */
abstract sealed class Node permits Node.Leaf, Node.Internal {
    static final byte[][] NO_KEYS = new byte[0][];

    final byte[][] keys;
    /**
     * 0 for a node of a published version (immutable); otherwise the parallel segment that made it,
     * whose workers may still change it in place until the segment is published ({@link Segment}).
     */
    final long epoch;

    private Node(byte[][] keys, long epoch) {
        this.keys = keys;
        this.epoch = epoch;
    }

    static final class Leaf extends Node {
        static final Leaf EMPTY = new Leaf(NO_KEYS, NO_KEYS);

        final byte[][] values;

        Leaf(byte[][] keys, byte[][] values) {
            this(keys, values, 0);
        }

        Leaf(byte[][] keys, byte[][] values, long epoch) {
            super(keys, epoch);
            this.values = values;
        }
    }

    static final class Internal extends Node {
        final Node[] children;

        Internal(byte[][] keys, Node[] children) {
            this(keys, children, 0);
        }

        Internal(byte[][] keys, Node[] children, long epoch) {
            super(keys, epoch);
            this.children = children;
        }
    }

    /** Unsigned lexicographic order, the order of the whole tree. */
    static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    /** Binary search: the index of {@code key}, or {@code -(insertionPoint) - 1}. */
    static int search(byte[][] keys, byte[] key) {
        int low = 0;
        int high = keys.length - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            int c = compare(keys[mid], key);
            if (c < 0) low = mid + 1;
            else if (c > 0) high = mid - 1;
            else return mid;
        }
        return -(low + 1);
    }

    /** The child of an internal node whose subtree may hold {@code key}. */
    static int childIndex(Internal node, byte[] key) {
        int i = search(node.keys, key);
        return i >= 0 ? i + 1 : -i - 1;
    }
}
