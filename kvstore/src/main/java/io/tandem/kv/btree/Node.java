package io.tandem.kv.btree;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A tree node. Nodes are immutable once built: a write copies the nodes on its root-to-leaf path
 * and shares everything else with the previous version, which is what lets readers keep using an
 * old root while the writer builds a new one. Arrays are sized exactly to their contents.
 *
 * <p>Internal node: {@code children.length == keys.length + 1}; child {@code i} holds the keys
 * {@code k} with {@code keys[i-1] <= k < keys[i]} (the separators may be keys that were since
 * deleted; they only have to bound the subtrees).
 *
 * <p><b>Key heads</b> (issue 25, part 15). Every node knows a length {@link #prefix} of bytes that all its keys
 * start with (a common prefix, not necessarily the longest one) and, per key, the {@value #HEAD_BYTES} bytes after
 * it as an {@code int} ({@link #heads}). A search compares the key's own head with the heads, one array of ints,
 * and reads a key's bytes only when the heads are equal; without them every step of the binary search
 * dereferenced another key array (a cache miss each in a large tree: the search was ~43 % of a follower's
 * execution thread). Why it gives the same answer: among keys that start with the prefix, the unsigned order
 * of the heads never contradicts the order of the keys (the first differing byte either lies in the heads, or
 * the heads are equal; a key that ends inside its head is padded with zero bytes, which can only make heads
 * equal, never reversed), so a head comparison that is not equal decides; and a key that does not start with
 * the prefix sorts before or after every key of the node, decided by the prefix bytes alone.
 */
abstract sealed class Node permits Node.Leaf, Node.Internal {
    static final byte[][] NO_KEYS = new byte[0][];
    static final int[] NO_HEADS = new int[0];
    /** Key bytes a head holds. */
    static final int HEAD_BYTES = 4;

    private static final VarHandle INT_BIG_ENDIAN = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    final byte[][] keys;
    /** Every key of this node starts with the same {@code prefix} bytes (those of {@code keys[0]}). */
    final int prefix;
    /** {@code heads[i] == head(keys[i], prefix)}: compared as signed ints, they order as the key bytes do. */
    final int[] heads;
    /**
     * 0 for a node of a published version (immutable); otherwise the parallel segment that made it,
     * whose workers may still change it in place until the segment is published ({@link Segment}).
     */
    final long epoch;

    private Node(byte[][] keys, int prefix, int[] heads, long epoch) {
        this.keys = keys;
        this.prefix = prefix;
        this.heads = heads;
        this.epoch = epoch;
    }

    static final class Leaf extends Node {
        static final Leaf EMPTY = new Leaf(NO_KEYS, NO_KEYS);

        final byte[][] values;

        Leaf(byte[][] keys, byte[][] values) {
            this(keys, values, 0);
        }

        /** A leaf whose prefix and heads are worked out from {@code keys}. */
        Leaf(byte[][] keys, byte[][] values, long epoch) {
            this(keys, commonPrefix(keys), values, epoch);
        }

        private Leaf(byte[][] keys, int prefix, byte[][] values, long epoch) {
            this(keys, prefix, heads(keys, prefix), values, epoch);
        }

        Leaf(byte[][] keys, int prefix, int[] heads, byte[][] values, long epoch) {
            super(keys, prefix, heads, epoch);
            this.values = values;
        }

        /** This leaf's keys (shared, with their heads) and other values. */
        Leaf withValues(byte[][] newValues, long newEpoch) {
            return new Leaf(keys, prefix, heads, newValues, newEpoch);
        }
    }

    static final class Internal extends Node {
        final Node[] children;

        Internal(byte[][] keys, Node[] children) {
            this(keys, children, 0);
        }

        /** A node whose prefix and heads are worked out from {@code keys}. */
        Internal(byte[][] keys, Node[] children, long epoch) {
            this(keys, commonPrefix(keys), children, epoch);
        }

        private Internal(byte[][] keys, int prefix, Node[] children, long epoch) {
            this(keys, prefix, heads(keys, prefix), children, epoch);
        }

        Internal(byte[][] keys, int prefix, int[] heads, Node[] children, long epoch) {
            super(keys, prefix, heads, epoch);
            this.children = children;
        }

        /** This node's separators (shared, with their heads) and other children. */
        Internal withChildren(Node[] newChildren, long newEpoch) {
            return new Internal(keys, prefix, heads, newChildren, newEpoch);
        }
    }

    /** Unsigned lexicographic order, the order of the whole tree. */
    static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    /**
     * Binary search among the node's keys: the index of {@code key}, or {@code -(insertionPoint) - 1}. Reads at
     * most the first key's prefix bytes, the heads, and the keys whose head equals the key's.
     */
    static int search(Node node, byte[] key) {
        return search(node, key, 0, key.length);
    }

    /** {@link #search(Node, byte[])} of the key in {@code buffer[from, to)}. */
    static int search(Node node, byte[] buffer, int from, int to) {
        byte[][] keys = node.keys;
        int n = keys.length;
        if (n == 0) return -1;
        int p = node.prefix;
        int length = to - from;
        if (p > 0) {
            byte[] first = keys[0];
            int m = Arrays.mismatch(buffer, from, from + Math.min(length, p), first, 0, p);
            if (m >= 0) {
                // The key leaves the node's prefix at byte m (or ends there): before or after every key here.
                return m == length || (buffer[from + m] & 0xFF) < (first[m] & 0xFF) ? -1 : -(n + 1);
            }
        }
        int h = head(buffer, from + p, to);
        int[] heads = node.heads;
        int low = 0;
        int high = n - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            int other = heads[mid];
            int c;
            if (other < h) {
                c = -1;
            } else if (other > h) {
                c = 1;
            } else {
                byte[] k = keys[mid];
                c = Arrays.compareUnsigned(k, p, k.length, buffer, from + p, to); // both start with the prefix
            }
            if (c < 0) low = mid + 1;
            else if (c > 0) high = mid - 1;
            else return mid;
        }
        return -(low + 1);
    }

    /** The child of an internal node whose subtree may hold {@code key}. */
    static int childIndex(Internal node, byte[] key) {
        return childIndex(node, key, 0, key.length);
    }

    static int childIndex(Internal node, byte[] buffer, int from, int to) {
        int i = search(node, buffer, from, to);
        return i >= 0 ? i + 1 : -i - 1;
    }

    // ---------------------------------------------------------------- heads

    /**
     * The {@value #HEAD_BYTES} bytes of {@code key} from {@code from} on, big-endian, missing bytes as zeros,
     * with the sign bit flipped so that signed {@code int} comparison gives the bytes' unsigned order.
     */
    static int head(byte[] key, int from) {
        return head(key, from, key.length);
    }

    /** {@link #head(byte[], int)} of a key that ends at {@code to} in {@code buffer}. */
    static int head(byte[] buffer, int from, int to) {
        int h;
        if (to - from >= HEAD_BYTES) {
            h = (int) INT_BIG_ENDIAN.get(buffer, from);
        } else {
            h = 0;
            for (int i = from; i < from + HEAD_BYTES; i++) h = (h << 8) | (i < to ? buffer[i] & 0xFF : 0);
        }
        return h ^ Integer.MIN_VALUE;
    }

    /** The longest prefix of sorted {@code keys}: that of the first and the last (every key lies between them). */
    static int commonPrefix(byte[][] keys) {
        int n = keys.length;
        if (n == 0) return 0;
        if (n == 1) return keys[0].length;
        int m = Arrays.mismatch(keys[0], keys[n - 1]);
        return m < 0 ? keys[0].length : m;
    }

    static int[] heads(byte[][] keys, int prefix) {
        if (keys.length == 0) return NO_HEADS;
        int[] heads = new int[keys.length];
        for (int i = 0; i < keys.length; i++) heads[i] = head(keys[i], prefix);
        return heads;
    }

    /** Whether {@code key} starts with {@code node}'s prefix, so that {@code node}'s heads hold for it. */
    static boolean sharesPrefix(Node node, byte[] key) {
        int p = node.prefix;
        if (p == 0) return true;
        // An emptied node keeps its prefix but has no key left to hold those bytes: work it out anew.
        return node.keys.length > 0 && key.length >= p && Arrays.mismatch(key, 0, p, node.keys[0], 0, p) < 0;
    }

    /**
     * Whether {@code key}, inserted at index {@code at} of {@code node}'s keys, starts with the node's prefix: at
     * once if it lands between two keys (a key between two keys that share a prefix shares it), else checked.
     */
    static boolean sharesPrefix(Node node, int at, byte[] key) {
        return at > 0 && at < node.keys.length || sharesPrefix(node, key);
    }

    static int[] insertedHead(int[] heads, int at, int head) {
        int[] result = new int[heads.length + 1];
        System.arraycopy(heads, 0, result, 0, at);
        result[at] = head;
        System.arraycopy(heads, at, result, at + 1, heads.length - at);
        return result;
    }

    static int[] removedHead(int[] heads, int at) {
        int[] result = new int[heads.length - 1];
        System.arraycopy(heads, 0, result, 0, at);
        System.arraycopy(heads, at + 1, result, at, heads.length - at - 1);
        return result;
    }
}
