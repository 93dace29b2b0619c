package io.tandem.kv.btree;

import io.tandem.kv.btree.Node.Internal;
import io.tandem.kv.btree.Node.Leaf;

/**
 * Walks the entries of one tree version in key order. It keeps the root-to-leaf path and steps to
 * the next leaf through the lowest ancestor that has a next child: the path plays the role of the
 * leaf sibling links of a classic B+-tree, which a copy-on-write tree cannot keep (see the README).
 * Each step to the next leaf costs amortized O(1) node visits.
 */
final class Cursor {
    private final Internal[] path;
    private final int[] pathIndex;
    private Leaf leaf;
    private int position;

    /** Positions the cursor at the first key {@code >= from} ({@code null}: the first key). */
    Cursor(Node root, int height, byte[] from) {
        int depth = height - 1;
        path = new Internal[depth];
        pathIndex = new int[depth];
        Node node = root;
        for (int level = 0; level < depth; level++) {
            Internal internal = (Internal) node;
            int child = from == null ? 0 : Node.childIndex(internal, from);
            path[level] = internal;
            pathIndex[level] = child;
            node = internal.children[child];
        }
        leaf = (Leaf) node;
        if (from == null) {
            position = 0;
        } else {
            int i = Node.search(leaf, from);
            position = i >= 0 ? i : -i - 1;
        }
        if (position == leaf.keys.length) nextLeaf();
    }

    boolean valid() {
        return leaf != null;
    }

    byte[] key() {
        return leaf.keys[position];
    }

    byte[] value() {
        return leaf.values[position];
    }

    void advance() {
        if (++position == leaf.keys.length) nextLeaf();
    }

    private void nextLeaf() {
        int level = path.length - 1;
        while (level >= 0 && pathIndex[level] + 1 >= path[level].children.length) level--;
        if (level < 0) {
            leaf = null;
            return;
        }
        Node node = path[level].children[++pathIndex[level]];
        for (int l = level + 1; l < path.length; l++) {
            Internal internal = (Internal) node;
            path[l] = internal;
            pathIndex[l] = 0;
            node = internal.children[0];
        }
        leaf = (Leaf) node;
        position = 0;
        // Only the root may be an empty leaf, and then there is no next leaf to reach.
    }
}
