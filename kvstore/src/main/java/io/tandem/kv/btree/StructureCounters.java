package io.tandem.kv.btree;

/**
 * How often each kind of structural change happened, counted by the single writer. Tests use it
 * to prove that their operation mix really splits, borrows and merges at every level.
 */
final class StructureCounters {
    long leafSplits;
    long internalSplits;
    long rootSplits;
    long leafBorrows;
    long internalBorrows;
    long leafMerges;
    long internalMerges;
    long rootCollapses;

    @Override
    public String toString() {
        return "splits(leaf=" + leafSplits + ", internal=" + internalSplits + ", root=" + rootSplits
                + ") borrows(leaf=" + leafBorrows + ", internal=" + internalBorrows
                + ") merges(leaf=" + leafMerges + ", internal=" + internalMerges + ", rootCollapses=" + rootCollapses + ")";
    }
}
