package io.tandem.jepsen.workload;

import io.tandem.history.EdnParseException;
import io.tandem.history.EdnReader;
import io.tandem.history.Keyword;
import io.tandem.jepsen.nemesis.FaultKind;
import io.tandem.jepsen.nemesis.NemesisSpec;
import io.tandem.jepsen.nemesis.PacketBehavior;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A workload as the shared spec files describe it ({@code jepsen/workloads/*.edn}, read by this runner
 * with our EDN reader and by the Clojure suite with {@code clojure.edn}): the operations, their mix and
 * rate, the process model's sizes, and the default fault schedule. Counts such as {@code "2n"} are
 * relative to the number of nodes, as in Jepsen's {@code --concurrency 2n}.
 *
 * @param name          the test name (the store directory is {@code store/<name>/<timestamp>})
 * @param kind          {@code :register} or {@code :set}
 * @param concurrency   client threads ({@code "2n"} style or a number)
 * @param threadsPerKey register: threads working on one key at a time (independent/concurrent-generator)
 * @param readersPerKey register: how many of those only read (gen/reserve)
 * @param mix           register: what the other threads draw from, uniformly ({@code [:write :cas :cas]})
 * @param values        register: values are drawn from {@code 0..values-1}
 * @param opsPerKey     register: operations per key, jittered by x[0.9, 1.0) (gen/limit)
 * @param processLimit  register: distinct processes per key before the group moves on (gen/process-limit)
 * @param elementsPerSet set: elements added to one set before the next set key starts
 * @param readFraction  set: the share of reads among set operations
 * @param rate          total operations per second over all threads (gen/stagger)
 * @param timeLimit     length of the fault phase
 * @param finalReads    after healing, read every key once more (until a read succeeds)
 * @param opTimeout     a process whose operation takes longer is considered crashed ({@code :info})
 * @param recovery      how long to wait after healing before the final reads
 * @param nemesis       the default fault schedule
 */
public record WorkloadSpec(String name, Keyword kind, Object concurrency, Object threadsPerKey, Object readersPerKey,
                           List<Keyword> mix, int values, int opsPerKey, int processLimit, int elementsPerSet, double readFraction,
                           double rate, Duration timeLimit, boolean finalReads, Duration opTimeout, Duration recovery,
                           NemesisSpec nemesis) {
    public static final Keyword REGISTER = Keyword.of("register");
    public static final Keyword SET = Keyword.of("set");
    private static final Set<Keyword> MIX_OPS = Set.of(Keyword.of("read"), Keyword.of("write"), Keyword.of("cas"));

    public WorkloadSpec {
        if (!kind.equals(REGISTER) && !kind.equals(SET)) throw new SpecException("unknown :workload " + kind + " (expected :register or :set)");
        mix = List.copyOf(mix);
        for (Keyword k : mix) if (!MIX_OPS.contains(k)) throw new SpecException(":mix may hold :read, :write and :cas, not " + k);
        if (values < 1 || opsPerKey < 1 || processLimit < 1 || elementsPerSet < 1 || elementsPerSet > 900) {
            throw new SpecException(":values, :ops-per-key and :process-limit must be positive, :elements-per-set in 1..900 (one scan page)");
        }
        if (readFraction < 0 || readFraction > 1) throw new SpecException(":read-fraction must be in [0, 1]");
        if (!(rate > 0)) throw new SpecException(":rate must be positive");
    }

    /** Reads a spec file. */
    public static WorkloadSpec load(Path file) {
        try {
            return parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read workload spec " + file, e);
        }
    }

    /** Parses spec text; {@code where} names it in errors. */
    public static WorkloadSpec parse(String where, String text) {
        Object form;
        try {
            form = EdnReader.parse(text);
        } catch (EdnParseException e) {
            throw new SpecException(where + ": " + e.getMessage());
        }
        SpecMap m = new SpecMap(where, form);
        Keyword kind = m.keyword("workload", REGISTER);
        return new WorkloadSpec(
                m.string("name", kind.name()),
                kind,
                m.raw("concurrency") == null ? "2n" : m.raw("concurrency"),
                m.raw("threads-per-key") == null ? "2n" : m.raw("threads-per-key"),
                m.raw("readers-per-key") == null ? "n" : m.raw("readers-per-key"),
                m.keywords("mix", List.of(Keyword.of("write"), Keyword.of("cas"), Keyword.of("cas"))),
                Math.toIntExact(m.number("values", 5)),
                Math.toIntExact(m.number("ops-per-key", 200)),
                Math.toIntExact(m.number("process-limit", 20)),
                Math.toIntExact(m.number("elements-per-set", 300)),
                m.decimal("read-fraction", 0.2),
                m.decimal("rate", 100),
                Duration.ofMillis(Math.round(m.decimal("time-limit", 60) * 1000)),
                m.flag("final-reads?", true),
                Duration.ofMillis(m.number("op-timeout-ms", 5000)),
                Duration.ofMillis(Math.round(m.decimal("recovery", 5) * 1000)),
                nemesis(m.map("nemesis")));
    }

    private static NemesisSpec nemesis(SpecMap n) {
        Set<FaultKind> faults = EnumSet.noneOf(FaultKind.class);
        Object raw = n.raw("faults");
        if (raw instanceof java.util.Collection<?> c) {
            for (Object o : c) {
                if (!(o instanceof Keyword k)) throw new SpecException(n.where() + ": :faults must hold keywords, got " + o);
                try {
                    faults.addAll(FaultKind.parse(k.name()));
                } catch (IllegalArgumentException e) {
                    throw new SpecException(n.where() + ": " + e.getMessage());
                }
            }
        } else if (raw != null) {
            throw new SpecException(n.where() + ": :faults must be a set of keywords");
        }
        Map<FaultKind, List<Keyword>> targets = new EnumMap<>(FaultKind.class);
        for (FaultKind k : FaultKind.values()) {
            SpecMap p = n.map(k.cliName());
            if (p.has("targets")) targets.put(k, p.keywords("targets", List.of()));
        }
        List<PacketBehavior> behaviors = new ArrayList<>();
        for (SpecMap b : n.map("packet").maps("behaviors")) {
            SpecMap delay = b.map("delay");
            behaviors.add(new PacketBehavior(delay.number("time-ms", 0), delay.number("jitter-ms", 0),
                    b.map("loss").decimal("percent", 0), b.map("duplicate").decimal("percent", 0), b.map("reorder").decimal("percent", 0)));
        }
        if (behaviors.isEmpty()) {
            behaviors.add(new PacketBehavior(50, 10, 0, 0, 0));
            behaviors.add(new PacketBehavior(0, 0, 20, 0, 0));
            behaviors.add(new PacketBehavior(20, 20, 0, 10, 20));
        }
        try {
            return new NemesisSpec(faults, Duration.ofMillis(Math.round(n.decimal("interval", 10) * 1000)), targets, behaviors,
                    Math.toIntExact(n.map("slow-cpu").number("percent", 10)),
                    n.map("slow-disk").number("bytes-per-second", 1 << 20),
                    n.map("slow-disk").number("iops", 50),
                    Duration.ofMillis(n.map("clock").number("max-offset-ms", 2000)),
                    NemesisSpec.Schedule.parse(n.keyword("schedule", Keyword.of("staggered")).name()));
        } catch (IllegalArgumentException e) {
            throw new SpecException(n.where() + ": " + e.getMessage());
        }
    }

    /** Client threads for a cluster of {@code nodes}. */
    public int concurrency(int nodes) {
        return perNodes("concurrency", concurrency, nodes);
    }

    public int threadsPerKey(int nodes) {
        return perNodes("threads-per-key", threadsPerKey, nodes);
    }

    public int readersPerKey(int nodes) {
        return perNodes("readers-per-key", readersPerKey, nodes);
    }

    public WorkloadSpec withTimeLimit(Duration t) {
        return new WorkloadSpec(name, kind, concurrency, threadsPerKey, readersPerKey, mix, values, opsPerKey, processLimit, elementsPerSet,
                readFraction, rate, t, finalReads, opTimeout, recovery, nemesis);
    }

    public WorkloadSpec withRate(double r) {
        return new WorkloadSpec(name, kind, concurrency, threadsPerKey, readersPerKey, mix, values, opsPerKey, processLimit, elementsPerSet,
                readFraction, r, timeLimit, finalReads, opTimeout, recovery, nemesis);
    }

    public WorkloadSpec withConcurrency(Object c) {
        return new WorkloadSpec(name, kind, c, threadsPerKey, readersPerKey, mix, values, opsPerKey, processLimit, elementsPerSet,
                readFraction, rate, timeLimit, finalReads, opTimeout, recovery, nemesis);
    }

    public WorkloadSpec withNemesis(NemesisSpec n) {
        return new WorkloadSpec(name, kind, concurrency, threadsPerKey, readersPerKey, mix, values, opsPerKey, processLimit, elementsPerSet,
                readFraction, rate, timeLimit, finalReads, opTimeout, recovery, n);
    }

    public WorkloadSpec withRecovery(Duration r) {
        return new WorkloadSpec(name, kind, concurrency, threadsPerKey, readersPerKey, mix, values, opsPerKey, processLimit, elementsPerSet,
                readFraction, rate, timeLimit, finalReads, opTimeout, r, nemesis);
    }

    private static int perNodes(String key, Object v, int nodes) {
        try {
            return SpecMap.parsePerNodes(v, nodes);
        } catch (IllegalArgumentException e) {
            throw new SpecException(":" + key + " must be a positive integer or a string like \"2n\": " + e.getMessage());
        }
    }
}
