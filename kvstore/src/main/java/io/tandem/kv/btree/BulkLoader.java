package io.tandem.kv.btree;

import io.tandem.kv.btree.Node.Internal;
import io.tandem.kv.btree.Node.Leaf;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds a tree bottom-up from entries that arrive in ascending key order and whose number is known
 * in advance: leaves first, then each internal level over the one below, until one root remains.
 *
 * <p>Nodes are filled to about two thirds, close to the ~69% (ln 2) fill that random insertion
 * produces, so the writes that follow a restore do not all split a full leaf, and the shape does
 * not depend on how the content was built. Sizes within a level differ by at most one and always
 * respect the fill bounds. The result depends only on the entries and the order.
 */
final class BulkLoader {
    private final int order;
    private final int total;
    private final Plan leafPlan;
    private final List<Node> leaves = new ArrayList<>();
    private final List<byte[]> leafFirstKeys = new ArrayList<>();
    private byte[][] keys;
    private byte[][] values;
    private int filled;
    private int added;

    BulkLoader(int order, int total) {
        this.order = order;
        this.total = total;
        int maxEntries = order - 1;
        this.leafPlan = new Plan(total, order / 2, maxEntries, twoThirds(maxEntries));
    }

    void add(byte[] key, byte[] value) {
        if (added == total) throw new IllegalStateException("more entries than the announced " + total);
        if (keys == null) {
            int size = leafPlan.sizeOf(leaves.size());
            keys = new byte[size][];
            values = new byte[size][];
            filled = 0;
        }
        keys[filled] = key;
        values[filled] = value;
        filled++;
        added++;
        if (filled == keys.length) {
            leaves.add(new Leaf(keys, values));
            leafFirstKeys.add(keys[0]);
            keys = null;
            values = null;
        }
    }

    TreeSnapshot finish() {
        if (added != total) throw new IllegalStateException("got " + added + " of the announced " + total + " entries");
        if (total == 0) return TreeSnapshot.empty(order);
        List<Node> nodes = leaves;
        List<byte[]> firstKeys = leafFirstKeys;
        int height = 1;
        while (nodes.size() > 1) {
            Plan plan = new Plan(nodes.size(), (order + 1) / 2, order, twoThirds(order));
            List<Node> parents = new ArrayList<>(plan.groups);
            List<byte[]> parentFirstKeys = new ArrayList<>(plan.groups);
            int next = 0;
            for (int g = 0; g < plan.groups; g++) {
                int n = plan.sizeOf(g);
                Node[] children = nodes.subList(next, next + n).toArray(new Node[0]);
                // The separator before each child after the first is that child's smallest key.
                byte[][] separators = firstKeys.subList(next + 1, next + n).toArray(new byte[0][]);
                parents.add(new Internal(separators, children));
                parentFirstKeys.add(firstKeys.get(next));
                next += n;
            }
            nodes = parents;
            firstKeys = parentFirstKeys;
            height++;
        }
        return new TreeSnapshot(nodes.getFirst(), total, height, order);
    }

    private static int twoThirds(int max) {
        return Math.max(1, (2 * max + 1) / 3);
    }

    /**
     * Splits {@code n} items into groups of {@code min..max} items, as close to {@code target} as
     * the bounds allow; a single group (the root) may hold fewer than {@code min}.
     */
    static final class Plan {
        final int groups;
        private final int base;
        private final int extra;

        Plan(int n, int min, int max, int target) {
            int g = 1;
            if (n > max) {
                g = Math.ceilDiv(n, Math.max(target, min));
                g = Math.max(g, Math.ceilDiv(n, max)); // no group above max
                g = Math.min(g, n / min);              // no group below min
            }
            this.groups = g;
            this.base = n / g;
            this.extra = n % g;
        }

        int sizeOf(int group) {
            return base + (group < extra ? 1 : 0);
        }
    }
}
