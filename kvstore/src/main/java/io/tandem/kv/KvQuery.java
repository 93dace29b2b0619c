package io.tandem.kv;

import java.util.Arrays;
import java.util.Objects;

/** A read of the KV service; it never changes state. */
public sealed interface KvQuery {

    /** The key's value: {@link KvResult.Found} or {@link KvResult.NotFound}. */
    record Get(byte[] key) implements KvQuery {
        public Get {
            Objects.requireNonNull(key, "key");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Get(byte[] k) && Arrays.equals(key, k);
        }

        @Override
        public int hashCode() {
            return Bytes.hash(key);
        }

        @Override
        public String toString() {
            return "Get[" + Bytes.preview(key) + "]";
        }
    }

    /**
     * Entries with {@code from <= key < to} in key order, as a {@link KvResult.Page} of at most
     * {@code limit} entries (capped by {@link KvLimits#maxScanEntries()} and
     * {@link KvLimits#maxScanBytes()}). A {@code null} bound is open.
     */
    record Scan(byte[] from, byte[] to, int limit) implements KvQuery {
        @Override
        public boolean equals(Object o) {
            return o instanceof Scan(byte[] f, byte[] t, int l) && Arrays.equals(from, f) && Arrays.equals(to, t) && limit == l;
        }

        @Override
        public int hashCode() {
            return 31 * Bytes.hash(from, to) + limit;
        }

        @Override
        public String toString() {
            return "Scan[" + Bytes.preview(from) + ", " + Bytes.preview(to) + "), limit " + limit + "]";
        }
    }
}
