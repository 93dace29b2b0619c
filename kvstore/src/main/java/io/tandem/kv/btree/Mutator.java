package io.tandem.kv.btree;

import io.tandem.kv.btree.Node.Internal;
import io.tandem.kv.btree.Node.Leaf;
import java.util.Arrays;
import java.util.Objects;

/**
 * The single writer's working state. Every change copies the nodes on the path from the changed
 * leaf up to the root and shares all other nodes with the previous version ("path copying"), so a
 * published {@link TreeSnapshot} is never modified. The path of the current operation is kept in
 * two arrays instead of recursion.
 *
 * <p>Each write (from {@link #begin} to {@link #finish}) has an epoch of its own, and every node it
 * makes carries it. Such a node is reachable from no published version, so the same write changes it
 * in place instead of copying it again: a write of many operations (a transaction, or a batch that
 * {@link BPlusTree#batch} keeps open across calls) copies each node on its paths once, not once per
 * operation. Every node this write made that is reachable from the working root has only such nodes
 * above it (a made node is only ever installed into a made parent, or as the root), so a write that
 * meets one on its path may stop copying there.
 *
 * <p>Fill bounds for order {@code m}: a leaf holds {@code floor(m/2)} to {@code m-1} entries, an
 * internal node {@code ceil(m/2)} to {@code m} children; the root is exempt from the lower bounds
 * (a root leaf may be empty, a root internal node has at least two children).
 */
final class Mutator implements TreeWriter {
    final int order;
    final int maxLeafEntries;
    final int minLeafEntries;
    final int minChildren;

    private Node root;
    private int size;
    private int height;
    private boolean open;
    private boolean changed;
    /** The open write's epoch (never 0, never a parallel segment's): the nodes it made and may change in place. */
    private long epoch;

    /** Internal nodes from the root (index 0) down to the leaf's parent, and the child taken at each. */
    private Internal[] path = new Internal[8];
    private int[] pathIndex = new int[8];

    final StructureCounters counters = new StructureCounters();

    Mutator(int order) {
        this.order = order;
        this.maxLeafEntries = order - 1;
        this.minLeafEntries = order / 2;
        this.minChildren = (order + 1) / 2;
    }

    void begin(TreeSnapshot base, long epoch) {
        if (epoch == 0) throw new IllegalArgumentException("epoch 0 marks published nodes");
        this.epoch = epoch;
        root = base.root();
        size = base.size();
        height = base.height();
        open = true;
        changed = false;
    }

    /** Ends the write; returns the new version, or {@code null} if nothing changed. */
    TreeSnapshot finish() {
        open = false;
        TreeSnapshot next = changed ? new TreeSnapshot(root, size, height, order) : null;
        root = null; // the mutator must not keep an abandoned version alive
        return next;
    }

    private void checkOpen() {
        if (!open) throw new IllegalStateException("this writer is no longer open: use it only inside its write");
    }

    @Override
    public int size() {
        checkOpen();
        return size;
    }

    @Override
    public byte[] get(byte[] key) {
        checkOpen();
        Objects.requireNonNull(key, "key");
        Leaf leaf = descend(key);
        int i = Node.search(leaf, key);
        return i >= 0 ? leaf.values[i] : null;
    }

    @Override
    public byte[] put(byte[] key, byte[] value) {
        checkOpen();
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return put(key, 0, key.length, key, value);
    }

    @Override
    public byte[] put(byte[] buffer, int from, int to, byte[] value) {
        checkOpen();
        Objects.checkFromToIndex(from, to, buffer.length);
        Objects.requireNonNull(value, "value");
        return put(buffer, from, to, null, value);
    }

    /** Puts the key in {@code buffer[from, to)}; an insert stores {@code keyArray}, or a copy of the range if null. */
    private byte[] put(byte[] buffer, int from, int to, byte[] keyArray, byte[] value) {
        Leaf leaf = descend(buffer, from, to);
        int leafDepth = height - 1;
        int i = Node.search(leaf, buffer, from, to);
        changed = true;
        if (i >= 0) {
            byte[] previous = leaf.values[i];
            if (made(leaf)) {
                leaf.values[i] = value; // made by this write: no published version sees it
                return previous;
            }
            byte[][] values = leaf.values.clone();
            values[i] = value;
            replacePath(leafDepth, leaf.withValues(values, epoch)); // the key array and its heads are shared
            return previous;
        }
        int at = -i - 1;
        size++;
        byte[] key = keyArray != null ? keyArray : Arrays.copyOfRange(buffer, from, to);
        byte[][] keys = inserted(leaf.keys, at, key);
        byte[][] values = inserted(leaf.values, at, value);
        if (keys.length <= maxLeafEntries) {
            replacePath(leafDepth, Node.sharesPrefix(leaf, at, key)
                    ? new Leaf(keys, leaf.prefix, Node.insertedHead(leaf.heads, at, Node.head(key, leaf.prefix)), values, epoch)
                    : leaf(keys, values));
            return null;
        }
        int leftCount = keys.length / 2;
        Leaf left = leaf(Arrays.copyOf(keys, leftCount), Arrays.copyOf(values, leftCount));
        Leaf right = leaf(Arrays.copyOfRange(keys, leftCount, keys.length),
                Arrays.copyOfRange(values, leftCount, values.length));
        counters.leafSplits++;
        splitPath(leafDepth, left, right.keys[0], right);
        return null;
    }

    @Override
    public byte[] remove(byte[] key) {
        checkOpen();
        Objects.requireNonNull(key, "key");
        Leaf leaf = descend(key);
        int i = Node.search(leaf, key);
        if (i < 0) return null;
        changed = true;
        size--;
        byte[] previous = leaf.values[i];
        // The remaining keys still start with the leaf's prefix: its heads stay valid.
        Node node = new Leaf(removed(leaf.keys, i), leaf.prefix, Node.removedHead(leaf.heads, i), removed(leaf.values, i), epoch);
        int depth = height - 1;
        while (depth > 0 && underflows(node)) {
            node = rebalance(depth - 1, node);
            depth--;
        }
        if (depth > 0) {
            replacePath(depth, node);
        } else if (node instanceof Internal internal && internal.children.length == 1) {
            root = internal.children[0];
            height--;
            counters.rootCollapses++;
        } else {
            root = node;
        }
        return previous;
    }

    @Override
    public CasOutcome compareAndSet(byte[] key, byte[] expected, byte[] update) {
        byte[] current = get(key);
        if (!Arrays.equals(current, expected)) return new CasOutcome(false, current);
        if (update != null) put(key, update);
        else if (current != null) remove(key);
        return new CasOutcome(true, current);
    }

    /** Walks from the root to the leaf that holds or would hold {@code key}, recording the path. */
    private Leaf descend(byte[] key) {
        return descend(key, 0, key.length);
    }

    /** {@link #descend(byte[])} for the key in {@code buffer[from, to)}. */
    private Leaf descend(byte[] buffer, int from, int to) {
        int depth = height - 1;
        if (path.length < depth) {
            path = Arrays.copyOf(path, depth * 2);
            pathIndex = Arrays.copyOf(pathIndex, depth * 2);
        }
        Node node = root;
        for (int level = 0; level < depth; level++) {
            Internal internal = (Internal) node;
            int child = Node.childIndex(internal, buffer, from, to);
            path[level] = internal;
            pathIndex[level] = child;
            node = internal.children[child];
        }
        return (Leaf) node;
    }

    /** Installs {@code node} as the new version of the node at {@code depth}, copying its ancestors. */
    private void replacePath(int depth, Node node) {
        for (int level = depth - 1; level >= 0; level--) {
            Internal parent = path[level];
            if (made(parent)) {
                // Made by this write, and so is everything above it (see the class comment).
                parent.children[pathIndex[level]] = node;
                return;
            }
            Node[] children = parent.children.clone();
            children[pathIndex[level]] = node;
            node = parent.withChildren(children, epoch); // the separators and their heads are shared
        }
        root = node;
    }

    /**
     * The node at {@code depth} split into {@code left} and {@code right}: inserts the separator
     * into the parent, splitting ancestors as long as they overflow, and grows a new root if the
     * old root split.
     */
    private void splitPath(int depth, Node left, byte[] separator, Node right) {
        for (int level = depth - 1; level >= 0; level--) {
            Internal parent = path[level];
            int at = pathIndex[level];
            byte[][] keys = inserted(parent.keys, at, separator);
            Node[] children = new Node[parent.children.length + 1];
            System.arraycopy(parent.children, 0, children, 0, at);
            children[at] = left;
            children[at + 1] = right;
            System.arraycopy(parent.children, at + 1, children, at + 2, parent.children.length - at - 1);
            if (children.length <= order) {
                replacePath(level, Node.sharesPrefix(parent, at, separator)
                        ? new Internal(keys, parent.prefix, Node.insertedHead(parent.heads, at, Node.head(separator, parent.prefix)), children, epoch)
                        : internal(keys, children));
                return;
            }
            // children.length == order + 1; the left half gets ceil(order / 2) children.
            int leftChildren = children.length / 2;
            left = internal(Arrays.copyOf(keys, leftChildren - 1), Arrays.copyOf(children, leftChildren));
            separator = keys[leftChildren - 1]; // moves up, kept in neither half
            right = internal(Arrays.copyOfRange(keys, leftChildren, keys.length),
                    Arrays.copyOfRange(children, leftChildren, children.length));
            counters.internalSplits++;
        }
        root = internal(new byte[][] {separator}, new Node[] {left, right});
        height++;
        counters.rootSplits++;
    }

    /** Whether this write made {@code node}: then it may change it in place. */
    private boolean made(Node node) {
        return node.epoch == epoch;
    }

    /** A leaf of this write with the prefix and heads worked out anew from {@code keys}. */
    private Leaf leaf(byte[][] keys, byte[][] values) {
        return new Leaf(keys, values, epoch);
    }

    /** An internal node of this write with the prefix and heads worked out anew from {@code keys}. */
    private Internal internal(byte[][] keys, Node[] children) {
        return new Internal(keys, children, epoch);
    }

    private boolean underflows(Node node) {
        return switch (node) {
            case Leaf leaf -> leaf.keys.length < minLeafEntries;
            case Internal internal -> internal.children.length < minChildren;
        };
    }

    private boolean canLend(Node node) {
        return switch (node) {
            case Leaf leaf -> leaf.keys.length > minLeafEntries;
            case Internal internal -> internal.children.length > minChildren;
        };
    }

    /**
     * Fixes the underflowing new version of child {@code path[level].children[pathIndex[level]]}:
     * borrows one entry (or child) from a sibling that can spare one, otherwise merges with a
     * sibling. Returns the new version of the parent, which may itself underflow after a merge.
     */
    private Internal rebalance(int level, Node node) {
        Internal parent = path[level];
        int at = pathIndex[level];
        Node left = at > 0 ? parent.children[at - 1] : null;
        Node right = at + 1 < parent.children.length ? parent.children[at + 1] : null;
        if (left != null && canLend(left)) return borrowFromLeft(parent, at, left, node);
        if (right != null && canLend(right)) return borrowFromRight(parent, at, node, right);
        if (left != null) return merge(parent, at - 1, left, node);
        return merge(parent, at, node, right);
    }

    private Internal borrowFromLeft(Internal parent, int at, Node left, Node node) {
        Node newLeft;
        Node newNode;
        byte[] separator;
        if (node instanceof Leaf leaf) {
            Leaf lender = (Leaf) left;
            int last = lender.keys.length - 1;
            newLeft = leaf(Arrays.copyOf(lender.keys, last), Arrays.copyOf(lender.values, last));
            newNode = leaf(inserted(leaf.keys, 0, lender.keys[last]), inserted(leaf.values, 0, lender.values[last]));
            separator = lender.keys[last];
            counters.leafBorrows++;
        } else {
            Internal internal = (Internal) node;
            Internal lender = (Internal) left;
            int lastKey = lender.keys.length - 1;
            // The lender's last child moves over; the parent's separator comes down in front of it
            // and the lender's last key goes up in its place.
            newNode = internal(inserted(internal.keys, 0, parent.keys[at - 1]),
                    inserted(internal.children, 0, lender.children[lastKey + 1]));
            separator = lender.keys[lastKey];
            newLeft = internal(Arrays.copyOf(lender.keys, lastKey), Arrays.copyOf(lender.children, lastKey + 1));
            counters.internalBorrows++;
        }
        byte[][] keys = parent.keys.clone();
        keys[at - 1] = separator;
        Node[] children = parent.children.clone();
        children[at - 1] = newLeft;
        children[at] = newNode;
        return internal(keys, children);
    }

    private Internal borrowFromRight(Internal parent, int at, Node node, Node right) {
        Node newRight;
        Node newNode;
        byte[] separator;
        if (node instanceof Leaf leaf) {
            Leaf lender = (Leaf) right;
            newNode = leaf(inserted(leaf.keys, leaf.keys.length, lender.keys[0]),
                    inserted(leaf.values, leaf.values.length, lender.values[0]));
            newRight = leaf(removed(lender.keys, 0), removed(lender.values, 0));
            separator = lender.keys[1];
            counters.leafBorrows++;
        } else {
            Internal internal = (Internal) node;
            Internal lender = (Internal) right;
            newNode = internal(inserted(internal.keys, internal.keys.length, parent.keys[at]),
                    inserted(internal.children, internal.children.length, lender.children[0]));
            separator = lender.keys[0];
            newRight = internal(removed(lender.keys, 0), removed(lender.children, 0));
            counters.internalBorrows++;
        }
        byte[][] keys = parent.keys.clone();
        keys[at] = separator;
        Node[] children = parent.children.clone();
        children[at] = newNode;
        children[at + 1] = newRight;
        return internal(keys, children);
    }

    /** Merges the adjacent children {@code at} and {@code at + 1} of {@code parent}. */
    private Internal merge(Internal parent, int at, Node left, Node right) {
        Node merged;
        if (left instanceof Leaf l) {
            Leaf r = (Leaf) right;
            merged = leaf(concat(l.keys, r.keys), concat(l.values, r.values));
            counters.leafMerges++;
        } else {
            Internal l = (Internal) left;
            Internal r = (Internal) right;
            // The separator between them comes down: it bounds r's keys from below.
            merged = internal(concat(inserted(l.keys, l.keys.length, parent.keys[at]), r.keys),
                    concat(l.children, r.children));
            counters.internalMerges++;
        }
        Node[] children = removed(parent.children, at + 1);
        children[at] = merged;
        return new Internal(removed(parent.keys, at), parent.prefix, Node.removedHead(parent.heads, at), children, epoch);
    }

    static <T> T[] inserted(T[] array, int at, T element) {
        T[] result = Arrays.copyOf(array, array.length + 1);
        System.arraycopy(array, at, result, at + 1, array.length - at);
        result[at] = element;
        return result;
    }

    static <T> T[] removed(T[] array, int at) {
        T[] result = Arrays.copyOf(array, array.length - 1);
        System.arraycopy(array, at + 1, result, at, array.length - at - 1);
        return result;
    }

    static <T> T[] concat(T[] a, T[] b) {
        T[] result = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, result, a.length, b.length);
        return result;
    }
}
