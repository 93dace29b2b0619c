package io.tandem.sim;

import io.tandem.history.History;
import io.tandem.history.HistoryBuilder;
import io.tandem.history.Keyword;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Records the client history of a run as a Jepsen history (verification.md §2) with virtual times:
 * the independent-register workload, values as {@code [key value]} tuples ({@code [key [old new]]}
 * for cas), and fault events as {@code :nemesis} ops.
 */
final class SimHistory {
    static final Keyword READ = Keyword.of("read");
    static final Keyword WRITE = Keyword.of("write");
    static final Keyword CAS = Keyword.of("cas");
    static final Keyword TIMEOUT = Keyword.of("timeout");

    private final LongSupplier clock;
    private final HistoryBuilder builder = History.builder();

    SimHistory(LongSupplier clock) {
        this.clock = clock;
    }

    static Keyword keyword(SimWorkload.Kind kind) {
        return switch (kind) {
            case READ -> READ;
            case WRITE -> WRITE;
            case CAS -> CAS;
        };
    }

    /** A {@code [key value]} tuple; the value may be nil, so not {@code List.of}. */
    static List<Object> tuple(long key, Object value) {
        return Collections.unmodifiableList(Arrays.asList(key, value));
    }

    void invoke(long process, Keyword f, Object value) {
        builder.invoke(clock.getAsLong(), process, f, value);
    }

    void ok(long process, Object value) {
        builder.ok(clock.getAsLong(), process, value);
    }

    void fail(long process, Object value, Keyword error) {
        builder.fail(clock.getAsLong(), process, value, error);
    }

    void info(long process, Object value, Keyword error) {
        builder.info(clock.getAsLong(), process, value, error);
    }

    void nemesis(String f, String value) {
        builder.nemesis(clock.getAsLong(), Keyword.of(f), value);
    }

    History build() {
        return builder.build();
    }
}
