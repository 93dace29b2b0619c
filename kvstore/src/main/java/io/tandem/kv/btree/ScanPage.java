package io.tandem.kv.btree;

import java.util.List;

/**
 * One page of a range scan, in key order.
 *
 * @param entries  at most the requested number of entries
 * @param nextFrom the first key of the range that this page did not return, to pass as the next
 *                 scan's inclusive start; {@code null} when the range is exhausted
 */
public record ScanPage(List<Entry> entries, byte[] nextFrom) {
    public ScanPage {
        entries = List.copyOf(entries);
    }

    public boolean hasMore() {
        return nextFrom != null;
    }

    @Override
    public String toString() {
        return "ScanPage[" + entries.size() + " entries, nextFrom=" + Entry.preview(nextFrom) + "]";
    }
}
