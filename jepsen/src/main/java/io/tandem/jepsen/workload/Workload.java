package io.tandem.jepsen.workload;

import io.tandem.history.History;
import io.tandem.jepsen.generator.Completion;
import io.tandem.jepsen.generator.Invocation;
import io.tandem.jepsen.generator.OpSource;
import io.tandem.kv.client.TandemKvClient;
import java.util.concurrent.CompletableFuture;

/**
 * A workload: the operations client threads perform, how they map to the KV service, and how the
 * resulting history is checked.
 */
public sealed interface Workload permits RegisterWorkload, SetWorkload {
    WorkloadSpec spec();

    /** The generator of the fault phase for {@code concurrency} threads. */
    OpSource generator(int concurrency);

    /** The final reads after healing, for the keys the history touched (Jepsen's final generator). */
    OpSource finalGenerator(History history);

    /** Performs one operation with the KV client and says how it ended. */
    CompletableFuture<Completion> invoke(TandemKvClient kv, Invocation invocation);

    /** Checks a finished history. */
    CheckOutcome check(History history);

    /** The workload a spec describes. */
    static Workload of(WorkloadSpec spec, int nodes) {
        if (spec.kind().equals(WorkloadSpec.SET)) return new SetWorkload(spec);
        return new RegisterWorkload(spec, nodes);
    }
}
