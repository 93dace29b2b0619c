package io.tandem.jepsen.workload;

import io.tandem.checker.CheckOptions;
import io.tandem.checker.CheckResult;
import io.tandem.checker.LinearizabilityChecker;
import io.tandem.checker.Model;
import io.tandem.checker.Violation;
import io.tandem.history.EdnWriter;
import io.tandem.history.History;
import io.tandem.history.Keyword;
import io.tandem.history.Op;
import io.tandem.jepsen.generator.Completion;
import io.tandem.jepsen.generator.Invocation;
import io.tandem.jepsen.generator.OpSource;
import io.tandem.kv.client.TandemKvClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * Independent linearizable registers, as {@code jepsen.tests.linearizable-register}: threads work in
 * groups of {@code threads-per-key} on one key at a time (independent/concurrent-generator); in each
 * group the first {@code readers-per-key} threads only read and the others draw from the mix
 * ({@code [:write :cas :cas]}); a key gets about {@code ops-per-key} operations (jittered by x[0.9, 1.0)
 * so keys don't finish together), then its group moves on to the next fresh key. Values are
 * {@code 0..values-1}. As Jepsen's {@code gen/process-limit}, a key is also finished once
 * {@code process-limit} distinct processes have worked on it: every crashed ({@code :info}) process is
 * replaced by a new one, and each indeterminate operation multiplies the linearizability search, so
 * this bounds the search per key. Op values are {@code [key value]} tuples: {@code :read [k v]}, {@code :write [k v]},
 * {@code :cas [k [old new]]}. Checked per key with the compare-and-set register model; keys start
 * absent, so a read of nil is a real observation (strict nil reads).
 */
public final class RegisterWorkload implements Workload {
    static final Keyword READ = Keyword.of("read");
    static final Keyword WRITE = Keyword.of("write");
    static final Keyword CAS = Keyword.of("cas");
    private static final Keyword CAS_MISMATCH = Keyword.of("cas-mismatch");
    private static final Duration CHECK_TIMEOUT = Duration.ofMinutes(5);
    /** Ten times the checker's default: histories from faulty runs carry many indeterminate operations. */
    private static final long CHECK_STEPS = 10 * CheckOptions.DEFAULT_MAX_STEPS;

    private final WorkloadSpec spec;
    private final int nodes;

    RegisterWorkload(WorkloadSpec spec, int nodes) {
        this.spec = spec;
        this.nodes = nodes;
    }

    @Override
    public WorkloadSpec spec() {
        return spec;
    }

    /** The KV key of register {@code k}. */
    static byte[] keyBytes(long k) {
        return ("jepsen/r/" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] valueBytes(long v) {
        return Long.toString(v).getBytes(StandardCharsets.UTF_8);
    }

    private static Long parseValue(byte[] b) {
        return Long.parseLong(new String(b, StandardCharsets.UTF_8));
    }

    @Override
    public OpSource generator(int concurrency) {
        int perKey = Math.min(spec.threadsPerKey(nodes), concurrency);
        int readers = Math.min(spec.readersPerKey(nodes), perKey);
        return new Groups(concurrency, perKey, readers);
    }

    /** The state of independent/concurrent-generator: one current key per group of threads. */
    private final class Groups implements OpSource {
        private final int perKey;
        private final int readers;
        private final AtomicLong nextKey = new AtomicLong();
        private final long[] key;
        private final int[] remaining;
        private final List<java.util.Set<Long>> processes = new ArrayList<>();

        Groups(int concurrency, int perKey, int readers) {
            this.perKey = perKey;
            this.readers = readers;
            int groups = (concurrency + perKey - 1) / perKey;
            key = new long[groups];
            remaining = new int[groups];
            for (int g = 0; g < groups; g++) processes.add(new java.util.HashSet<>());
        }

        @Override
        public Invocation next(int thread, long process, RandomGenerator random) {
            int g = thread / perKey;
            long k;
            synchronized (this) {
                var seen = processes.get(g);
                boolean newProcess = !seen.contains(process);
                if (remaining[g] <= 0 || (newProcess && seen.size() >= spec.processLimit())) {
                    key[g] = nextKey.getAndIncrement();
                    remaining[g] = (int) Math.max(1, Math.round(spec.opsPerKey() * (0.9 + random.nextDouble(0.1))));
                    seen.clear();
                }
                seen.add(process);
                remaining[g]--;
                k = key[g];
            }
            Keyword f = thread % perKey < readers ? READ : spec.mix().get(random.nextInt(spec.mix().size()));
            return switch (f.name()) {
                case "read" -> new Invocation(READ, Arrays.asList(k, null));
                case "write" -> new Invocation(WRITE, List.of(k, (long) random.nextInt(spec.values())));
                default -> new Invocation(CAS, List.of(k, List.of((long) random.nextInt(spec.values()), (long) random.nextInt(spec.values()))));
            };
        }
    }

    @Override
    public OpSource finalGenerator(History history) {
        TreeSet<Long> keys = new TreeSet<>();
        for (Op op : history.ops()) {
            if (op.isClient() && op.value() instanceof List<?> l && !l.isEmpty() && l.getFirst() instanceof Long k) keys.add(k);
        }
        List<Invocation> reads = new ArrayList<>();
        for (long k : keys) reads.add(new Invocation(READ, Arrays.asList(k, null)));
        return new FinalReads(reads);
    }

    @Override
    public CompletableFuture<Completion> invoke(TandemKvClient kv, Invocation inv) {
        List<?> tuple = (List<?>) inv.value();
        long k = (Long) tuple.get(0);
        Object arg = tuple.get(1);
        boolean read = inv.f().equals(READ);
        CompletableFuture<Completion> result = switch (inv.f().name()) {
            case "read" -> kv.getAsync(keyBytes(k)).thenApply(v -> Completion.ok(Arrays.asList(k, v.map(RegisterWorkload::parseValue).orElse(null))));
            case "write" -> kv.putAsync(keyBytes(k), valueBytes((Long) arg)).thenApply(previous -> Completion.ok(inv.value()));
            case "cas" -> {
                List<?> oldNew = (List<?>) arg;
                yield kv.compareAndSetAsync(keyBytes(k), valueBytes((Long) oldNew.get(0)), valueBytes((Long) oldNew.get(1)))
                        .thenApply(r -> r.succeeded() ? Completion.ok(inv.value()) : Completion.fail(inv.value(), CAS_MISMATCH));
            }
            default -> throw new IllegalArgumentException("the register workload has no op " + inv.f());
        };
        return result.exceptionally(e -> ClientErrors.completion(inv.value(), e, read));
    }

    @Override
    public CheckOutcome check(History history) {
        CheckResult r = LinearizabilityChecker.check(history, Model.kv(), CheckOptions.defaults().withMaxSteps(CHECK_STEPS).withTimeout(CHECK_TIMEOUT));
        Map<Object, Object> m = new LinkedHashMap<>();
        m.put(Keyword.of("model"), Keyword.of("cas-register"));
        m.put(Keyword.of("independent?"), true);
        m.put(Keyword.of("operations"), (long) r.operations());
        Verdict verdict = switch (r) {
            case CheckResult.Valid v -> {
                m.put(Keyword.of("keys"), (long) v.keys());
                m.put(Keyword.of("search-steps"), v.steps());
                yield Verdict.VALID;
            }
            case CheckResult.Invalid inv -> {
                List<Object> failures = new ArrayList<>();
                for (Violation v : inv.violations()) {
                    Map<Object, Object> f = new LinkedHashMap<>();
                    f.put(Keyword.of("key"), v.key());
                    f.put(Keyword.of("op"), v.blocked().completion() != null ? v.blocked().completion().toMap() : v.blocked().invocation().toMap());
                    f.put(Keyword.of("value-after-prefix"), v.valueAfterPrefix());
                    f.put(Keyword.of("summary"), v.summary());
                    failures.add(f);
                }
                m.put(Keyword.of("failures"), failures);
                m.put(Keyword.of("report"), inv.first().report()); // every violation's summary is in :failures
                yield Verdict.INVALID;
            }
            case CheckResult.Unknown u -> {
                m.put(Keyword.of("reason"), u.reason());
                yield Verdict.UNKNOWN;
            }
        };
        Map<Object, Object> out = new LinkedHashMap<>();
        out.put(Keyword.of("valid?"), verdict.edn());
        out.putAll(m);
        return new CheckOutcome(verdict, out, "linearizable registers: " + r.summary());
    }

    @Override
    public String toString() {
        return "register workload " + EdnWriter.toEdn(spec.name());
    }
}
