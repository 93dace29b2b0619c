package io.tandem.kv.btree;

import io.tandem.kv.btree.Node.Internal;
import io.tandem.kv.btree.Node.Leaf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The working version of a tree during one parallel segment of P-SMR (between two points where
 * every worker is paused): several workers write at once, each only where the conflict relation
 * lets it (opt-psmr.md §4.3-§4.4). The published version is never touched (readers and snapshots
 * keep their guarantees): the first write under a node copies it into the segment (copy-on-write,
 * the copy installed with a compare-and-set on its parent's child slot, so two workers copying the
 * same node agree on one copy) and later writes of the segment change the copies in place:
 * <ul>
 *   <li>an update of an existing key sets one value slot of its leaf (two workers updating
 *       different keys of one leaf set different slots);</li>
 *   <li>an insert or delete that passed the safety check replaces its leaf, which lies wholly in the
 *       worker's partition (no other worker touches it), in its parent's slot;</li>
 *   <li>no inner node ever changes shape here: splits, merges and borrows happen only in
 *       synchronous mode, when the segment is published and the ordinary writer runs.</li>
 * </ul>
 * A write that would need a structural change is refused with an exception: the check and the
 * execution drifted apart (pitfall 16), a bug, never a silent race.
 */
final class Segment {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Node[].class);

    final long epoch;
    final TreeSnapshot base;
    private final AtomicReference<Node> root = new AtomicReference<>();
    private final Mutator limits;
    /** Entry-count changes, per worker (each worker writes its own slot). */
    private final long[] sizeDelta = new long[64 * 8];

    Segment(long epoch, TreeSnapshot base, Mutator limits) {
        this.epoch = epoch;
        this.base = base;
        this.limits = limits;
    }

    /** The root every reader of this segment starts from. */
    Node root() {
        Node r = root.get();
        return r != null ? r : base.root();
    }

    /** The version to publish at the end of the segment. */
    TreeSnapshot finish() {
        Node r = root.get();
        if (r == null) return base;
        long delta = 0;
        for (int i = 0; i < sizeDelta.length; i += 8) delta += sizeDelta[i];
        return new TreeSnapshot(r, (int) (base.size() + delta), base.height(), base.order());
    }

    private Node copy(Node n) {
        return switch (n) {
            case Leaf l -> l.withValues(l.values.clone(), epoch);
            case Internal in -> in.withChildren(in.children.clone(), epoch);
        };
    }

    private Node writableRoot() {
        Node r = root.get();
        if (r != null) return r;
        Node c = copy(base.root());
        Node witness = root.compareAndExchange(null, c);
        return witness == null ? c : witness;
    }

    private Node writableChild(Internal parent, int i) {
        Node child = (Node) SLOT.getAcquire(parent.children, i);
        if (child.epoch == epoch) return child;
        Node c = copy(child);
        Node witness = (Node) SLOT.compareAndExchangeRelease(parent.children, i, child, c);
        return witness == child ? c : witness;
    }

    static Node child(Internal parent, int i) {
        return (Node) SLOT.getAcquire(parent.children, i);
    }

    /** The value of {@code key} in this segment. */
    byte[] get(byte[] key) {
        Node n = root();
        while (n instanceof Internal in) n = child(in, Node.childIndex(in, key));
        Leaf leaf = (Leaf) n;
        int i = Node.search(leaf, key);
        return i >= 0 ? leaf.values[i] : null;
    }

    /** Sets {@code key}; an absent key is inserted only if its leaf has room. */
    byte[] put(int worker, byte[] key, byte[] value) {
        Internal parent = null;
        int slot = -1;
        Node n = writableRoot();
        while (n instanceof Internal in) {
            parent = in;
            slot = Node.childIndex(in, key);
            n = writableChild(in, slot);
        }
        Leaf leaf = (Leaf) n;
        int i = Node.search(leaf, key);
        if (i >= 0) {
            byte[] previous = leaf.values[i];
            leaf.values[i] = value; // this worker's key: nobody else reads or writes this slot now
            return previous;
        }
        if (leaf.keys.length >= limits.maxLeafEntries) {
            throw new IllegalStateException("a parallel insert would split a leaf: the safety check and the execution disagree");
        }
        int at = -i - 1;
        byte[][] keys = Mutator.inserted(leaf.keys, at, key);
        byte[][] values = Mutator.inserted(leaf.values, at, value);
        replace(parent, slot, Node.sharesPrefix(leaf, at, key)
                ? new Leaf(keys, leaf.prefix, Node.insertedHead(leaf.heads, at, Node.head(key, leaf.prefix)), values, epoch)
                : new Leaf(keys, values, epoch));
        sizeDelta[worker * 8]++;
        return null;
    }

    /** Deletes {@code key} if its leaf stays at or above its minimum fill (or is the root). */
    byte[] remove(int worker, byte[] key) {
        Internal parent = null;
        int slot = -1;
        Node n = writableRoot();
        while (n instanceof Internal in) {
            parent = in;
            slot = Node.childIndex(in, key);
            n = writableChild(in, slot);
        }
        Leaf leaf = (Leaf) n;
        int i = Node.search(leaf, key);
        if (i < 0) return null;
        if (parent != null && leaf.keys.length - 1 < limits.minLeafEntries) {
            throw new IllegalStateException("a parallel delete would underflow a leaf: the safety check and the execution disagree");
        }
        byte[] previous = leaf.values[i];
        replace(parent, slot, new Leaf(Mutator.removed(leaf.keys, i), leaf.prefix, Node.removedHead(leaf.heads, i),
                Mutator.removed(leaf.values, i), epoch));
        sizeDelta[worker * 8]--;
        return previous;
    }

    private void replace(Internal parent, int slot, Leaf leaf) {
        if (parent == null) root.set(leaf);
        else SLOT.setRelease(parent.children, slot, leaf);
    }
}
