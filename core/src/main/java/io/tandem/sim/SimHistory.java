package io.tandem.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.LongSupplier;

/** Records client invocations and completions with their virtual times, densely indexed from 0. */
final class SimHistory {
    private final LongSupplier clock;
    private final List<SimOp> ops = new ArrayList<>();

    SimHistory(LongSupplier clock) {
        this.clock = clock;
    }

    void record(SimOp.Type type, long process, SimOp.F f, long key, Object value, String error) {
        ops.add(new SimOp(ops.size(), clock.getAsLong(), type, process, f, key, value, error));
    }

    List<SimOp> ops() {
        return Collections.unmodifiableList(ops);
    }
}
