package io.tandem.kv;

import io.tandem.kv.btree.Entry;
import io.tandem.statemachine.CommandResult;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The answer to a {@link KvCommand} or {@link KvQuery}. It is its own {@link CommandResult}: the state
 * machine hands the executor the result itself and the bytes ({@link KvCodec#encode(KvResult)}) are made
 * only when a client waits for them, a retry asks again or a snapshot is written (issue 25). That is safe
 * because a result only refers to arrays the tree never changes (a previous value is the array the tree
 * held, replaced by a new one, not overwritten).
 */
public sealed interface KvResult extends CommandResult {

    /** The result's bytes, as {@link KvCodec#encode(KvResult)}. */
    @Override
    default byte[] encode() {
        return KvCodec.encodeResult(this);
    }

    /** Returns this result, or throws the {@link KvException} a {@link Failed} result stands for. */
    default KvResult orThrow() {
        if (this instanceof Failed(KvException.Reason reason, String message)) throw new KvException(reason, message);
        return this;
    }

    /** The key had a value: the current one for a get, the previous one for a put or delete. */
    record Found(byte[] value) implements KvResult {
        public Found {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Found(byte[] v) && Arrays.equals(value, v);
        }

        @Override
        public int hashCode() {
            return Bytes.hash(value);
        }

        @Override
        public String toString() {
            return "Found[" + Bytes.preview(value) + "]";
        }
    }

    /** The key had no value (before a put or delete, or now for a get). */
    record NotFound() implements KvResult {}

    /** The compare-and-set matched and took effect. */
    record CasSucceeded() implements KvResult {}

    /** The compare-and-set did not match; {@code current} is the key's value ({@code null}: absent). */
    record CasFailed(byte[] current) implements KvResult {
        @Override
        public boolean equals(Object o) {
            return o instanceof CasFailed(byte[] c) && Arrays.equals(current, c);
        }

        @Override
        public int hashCode() {
            return Bytes.hash(current);
        }

        @Override
        public String toString() {
            return "CasFailed[current=" + Bytes.preview(current) + "]";
        }
    }

    /**
     * One page of a scan.
     *
     * @param nextFrom the first key not returned, to start the next page from; {@code null} when
     *                 the range is exhausted
     */
    record Page(List<Entry> entries, byte[] nextFrom) implements KvResult {
        public Page {
            entries = List.copyOf(entries);
        }

        public boolean hasMore() {
            return nextFrom != null;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Page(List<Entry> e, byte[] n) && entries.equals(e) && Arrays.equals(nextFrom, n);
        }

        @Override
        public int hashCode() {
            return 31 * entries.hashCode() + Arrays.hashCode(nextFrom);
        }

        @Override
        public String toString() {
            return "Page[" + entries.size() + " entries, nextFrom=" + Bytes.preview(nextFrom) + "]";
        }
    }

    /** The request was refused; nothing changed. */
    record Failed(KvException.Reason reason, String message) implements KvResult {
        public Failed {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(message, "message");
        }
    }
}
