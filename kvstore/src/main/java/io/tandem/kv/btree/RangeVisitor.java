package io.tandem.kv.btree;

/** Receives the entries of a range in key order; see {@link TreeSnapshot#forEach}. */
@FunctionalInterface
public interface RangeVisitor {
    /**
     * Called for each entry; the arrays are the tree's own and must not be modified.
     *
     * @return {@code false} to stop before the next entry
     */
    boolean visit(byte[] key, byte[] value);
}
