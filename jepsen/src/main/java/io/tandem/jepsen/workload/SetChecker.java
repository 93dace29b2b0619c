package io.tandem.jepsen.workload;

import io.tandem.history.History;
import io.tandem.history.Keyword;
import io.tandem.history.Op;
import io.tandem.history.Operation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks the set workload the way Jepsen's {@code checker/set-full} does with {@code :linearizable? true},
 * per independent set. For each element it finds the moment it is known to be in the set (its add
 * completed {@code :ok}, or a completed read saw it) and then every read invoked after that moment must
 * contain it:
 *
 * <ul>
 *   <li><b>lost</b>: known present, but missing from the set's last read;</li>
 *   <li><b>stale</b>: missing from some read after it was known, though the last read has it;</li>
 *   <li><b>duplicated</b>: a read returned it more than once;</li>
 *   <li><b>unexpected</b>: a read returned an element nobody tried to add.</li>
 * </ul>
 *
 * Any of these is an anomaly. Adds that ended {@code :info} and show up in reads are "recovered" (fine:
 * they may have happened). If a set with acknowledged adds has no successful read invoked after its last
 * acknowledged add, losses cannot be ruled out and the verdict is unknown.
 */
public final class SetChecker {
    private static final int EXAMPLES = 20;

    private SetChecker() {}

    public static CheckOutcome check(History history) {
        Map<Long, SetOps> sets = new TreeMap<>();
        for (Operation o : history.operations()) {
            if (!(o.invocation().value() instanceof List<?> t) || t.size() != 2 || !(t.get(0) instanceof Long s)) continue;
            SetOps ops = sets.computeIfAbsent(s, k -> new SetOps());
            String f = o.f() instanceof Keyword k ? k.name() : String.valueOf(o.f());
            switch (f) {
                case "add" -> ops.adds.add(o);
                case "read" -> {
                    if (o.outcome() == Op.Type.OK) ops.reads.add(o);
                }
                default -> { }
            }
        }
        List<Object> lost = new ArrayList<>();
        List<Object> stale = new ArrayList<>();
        List<Object> duplicated = new ArrayList<>();
        List<Object> unexpected = new ArrayList<>();
        List<String> unchecked = new ArrayList<>();
        long attempts = 0;
        long acknowledged = 0;
        long recovered = 0;
        long lostCount = 0;
        long staleCount = 0;
        long duplicatedCount = 0;
        long unexpectedCount = 0;
        long readCount = 0;
        for (Map.Entry<Long, SetOps> entry : sets.entrySet()) {
            long s = entry.getKey();
            SetOps ops = entry.getValue();
            readCount += ops.reads.size();
            Map<Long, Operation> addOf = new HashMap<>();
            for (Operation a : ops.adds) {
                Object e = ((List<?>) a.invocation().value()).get(1);
                if (e instanceof Long el) addOf.put(el, a);
            }
            attempts += addOf.size();
            // Each read's elements, counted; duplicates and unexpected elements are anomalies of the read alone.
            List<Set<Long>> readSets = new ArrayList<>();
            Map<Long, Integer> firstSeenAt = new HashMap<>();
            for (Operation r : ops.reads) {
                Set<Long> seen = new HashSet<>();
                Object v = ((List<?>) r.completion().value()).get(1);
                if (v instanceof List<?> elements) {
                    for (Object o : elements) {
                        if (!(o instanceof Long el)) continue;
                        if (!seen.add(el)) {
                            duplicatedCount++;
                            if (duplicated.size() < EXAMPLES) duplicated.add(List.of(s, el));
                        }
                        if (!addOf.containsKey(el)) {
                            unexpectedCount++;
                            if (unexpected.size() < EXAMPLES) unexpected.add(List.of(s, el));
                        }
                        firstSeenAt.merge(el, r.completedAt(), Math::min);
                    }
                }
                readSets.add(seen);
            }
            Operation lastRead = null;
            Set<Long> lastSet = Set.of();
            for (int i = 0; i < ops.reads.size(); i++) {
                if (lastRead == null || ops.reads.get(i).invokedAt() > lastRead.invokedAt()) {
                    lastRead = ops.reads.get(i);
                    lastSet = readSets.get(i);
                }
            }
            int lastAck = -1;
            for (Map.Entry<Long, Operation> a : addOf.entrySet()) {
                long el = a.getKey();
                Operation add = a.getValue();
                boolean ok = add.outcome() == Op.Type.OK;
                if (ok) {
                    acknowledged++;
                    lastAck = Math.max(lastAck, add.completedAt());
                } else if (firstSeenAt.containsKey(el)) {
                    recovered++;
                }
                int known = Integer.MAX_VALUE;
                if (ok) known = add.completedAt();
                Integer seen = firstSeenAt.get(el);
                if (seen != null) known = Math.min(known, seen);
                if (known == Integer.MAX_VALUE) continue;
                boolean missingLater = false;
                for (int i = 0; i < ops.reads.size(); i++) {
                    if (ops.reads.get(i).invokedAt() > known && !readSets.get(i).contains(el)) {
                        missingLater = true;
                        break;
                    }
                }
                if (!missingLater) continue;
                if (lastRead != null && lastRead.invokedAt() > known && !lastSet.contains(el)) {
                    lostCount++;
                    if (lost.size() < EXAMPLES) lost.add(List.of(s, el));
                } else {
                    staleCount++;
                    if (stale.size() < EXAMPLES) stale.add(List.of(s, el));
                }
            }
            if (lastAck >= 0 && (lastRead == null || lastRead.invokedAt() < lastAck)) {
                unchecked.add("set " + s + " has no successful read after its last acknowledged add");
            }
        }
        boolean anomaly = lostCount + staleCount + duplicatedCount + unexpectedCount > 0;
        Verdict verdict = anomaly ? Verdict.INVALID : unchecked.isEmpty() ? Verdict.VALID : Verdict.UNKNOWN;
        Map<Object, Object> m = new LinkedHashMap<>();
        m.put(Keyword.of("valid?"), verdict.edn());
        m.put(Keyword.of("sets"), (long) sets.size());
        m.put(Keyword.of("reads"), readCount);
        m.put(Keyword.of("attempt-count"), attempts);
        m.put(Keyword.of("acknowledged-count"), acknowledged);
        m.put(Keyword.of("recovered-count"), recovered);
        m.put(Keyword.of("lost-count"), lostCount);
        m.put(Keyword.of("lost"), lost);
        m.put(Keyword.of("stale-count"), staleCount);
        m.put(Keyword.of("stale"), stale);
        m.put(Keyword.of("duplicated-count"), duplicatedCount);
        m.put(Keyword.of("duplicated"), duplicated);
        m.put(Keyword.of("unexpected-count"), unexpectedCount);
        m.put(Keyword.of("unexpected"), unexpected);
        if (!unchecked.isEmpty()) m.put(Keyword.of("unchecked"), unchecked);
        String summary = "set: " + acknowledged + " of " + attempts + " adds acknowledged, " + recovered + " recovered; "
                + lostCount + " lost, " + staleCount + " stale, " + duplicatedCount + " duplicated, " + unexpectedCount + " unexpected"
                + (unchecked.isEmpty() ? "" : "; " + unchecked.size() + " sets not read after their last add");
        return new CheckOutcome(verdict, m, summary);
    }

    private static final class SetOps {
        final List<Operation> adds = new ArrayList<>();
        final List<Operation> reads = new ArrayList<>();
    }
}
