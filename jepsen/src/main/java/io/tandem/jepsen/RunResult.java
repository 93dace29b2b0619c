package io.tandem.jepsen;

import io.tandem.jepsen.nemesis.FaultKind;
import io.tandem.jepsen.store.OpCounts;
import io.tandem.jepsen.workload.CheckOutcome;
import io.tandem.jepsen.workload.Verdict;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The outcome of a run.
 *
 * @param verdict  the checker's verdict
 * @param check    the checker's result
 * @param counts   client operations per {@code :f} and outcome, and nemesis ops
 * @param faults   the fault kinds that ran
 * @param skipped  requested fault kinds that could not run here, with the reason
 * @param storeDir where the history, results, logs and reports are
 */
public record RunResult(Verdict verdict, CheckOutcome check, OpCounts counts, List<FaultKind> faults,
                        Map<FaultKind, String> skipped, Path storeDir) {
}
