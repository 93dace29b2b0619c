package io.tandem.kv;

import java.util.Arrays;
import java.util.Objects;

/** A write to the KV service, replicated and applied in order. Keys are compared as unsigned bytes. */
public sealed interface KvCommand {
    byte[] key();

    /** Sets the key; the result is {@link KvResult.Found} with the previous value or {@link KvResult.NotFound}. */
    record Put(byte[] key, byte[] value) implements KvCommand {
        public Put {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Put(byte[] k, byte[] v) && Arrays.equals(key, k) && Arrays.equals(value, v);
        }

        @Override
        public int hashCode() {
            return Bytes.hash(key, value);
        }

        @Override
        public String toString() {
            return "Put[" + Bytes.preview(key) + "=" + Bytes.preview(value) + "]";
        }
    }

    /** Deletes the key; the result is {@link KvResult.Found} with the previous value or {@link KvResult.NotFound}. */
    record Delete(byte[] key) implements KvCommand {
        public Delete {
            Objects.requireNonNull(key, "key");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Delete(byte[] k) && Arrays.equals(key, k);
        }

        @Override
        public int hashCode() {
            return Bytes.hash(key);
        }

        @Override
        public String toString() {
            return "Delete[" + Bytes.preview(key) + "]";
        }
    }

    /**
     * Sets the key to {@code update} ({@code null}: deletes it) if its value equals {@code expected}
     * ({@code null}: if it is absent). The result is {@link KvResult.CasSucceeded} or
     * {@link KvResult.CasFailed} with the current value.
     */
    record CompareAndSet(byte[] key, byte[] expected, byte[] update) implements KvCommand {
        public CompareAndSet {
            Objects.requireNonNull(key, "key");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CompareAndSet(byte[] k, byte[] e, byte[] u)
                    && Arrays.equals(key, k) && Arrays.equals(expected, e) && Arrays.equals(update, u);
        }

        @Override
        public int hashCode() {
            return Bytes.hash(key, expected, update);
        }

        @Override
        public String toString() {
            return "CompareAndSet[" + Bytes.preview(key) + ": " + Bytes.preview(expected) + " -> " + Bytes.preview(update) + "]";
        }
    }
}
