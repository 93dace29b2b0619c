package io.tandem.jepsen.workload;

import io.tandem.history.History;
import io.tandem.history.Keyword;
import io.tandem.history.Op;
import io.tandem.jepsen.generator.Completion;
import io.tandem.jepsen.generator.Invocation;
import io.tandem.jepsen.generator.OpSource;
import io.tandem.kv.KvResult;
import io.tandem.kv.client.TandemKvClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * A grow-only set per key, checked for lost, stale, duplicated and unexpected elements
 * ({@link SetChecker}). Elements are unique longs from one counter; element {@code e} belongs to set
 * {@code e / elements-per-set}, so the sets fill one after the other, as Jepsen's set workloads rotate
 * keys to keep each read small. Each element is its own KV key under the set's prefix
 * ({@code jepsen/s/<set>/<element>}, value = the element), so {@code :add [s e]} is a put and
 * {@code :read [s nil]} is one scan of the prefix, which exercises the B+-tree's range scans. A set never
 * outgrows one scan page, so every read is a single linearizable query.
 */
public final class SetWorkload implements Workload {
    static final Keyword ADD = Keyword.of("add");
    static final Keyword READ = Keyword.of("read");
    private static final Keyword MULTI_PAGE = Keyword.of("multi-page");
    private static final int SCAN_LIMIT = 1000;

    private final WorkloadSpec spec;

    SetWorkload(WorkloadSpec spec) {
        this.spec = spec;
    }

    @Override
    public WorkloadSpec spec() {
        return spec;
    }

    static String setPrefix(long set) {
        return "jepsen/s/" + String.format("%06d", set) + "/";
    }

    static byte[] elementKey(long set, long element) {
        return (setPrefix(set) + String.format("%010d", element)).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public OpSource generator(int concurrency) {
        AtomicLong nextElement = new AtomicLong();
        return (thread, process, random) -> {
            long current = nextElement.get() / spec.elementsPerSet();
            if (random.nextDouble() < spec.readFraction()) {
                // Mostly the set being filled; sometimes the one before, which is complete by now.
                long s = current > 0 && random.nextInt(4) == 0 ? current - 1 : current;
                return new Invocation(READ, Arrays.asList(s, null));
            }
            long e = nextElement.getAndIncrement();
            return new Invocation(ADD, List.of(e / spec.elementsPerSet(), e));
        };
    }

    @Override
    public OpSource finalGenerator(History history) {
        TreeSet<Long> sets = new TreeSet<>();
        for (Op op : history.ops()) {
            if (op.isClient() && op.value() instanceof List<?> l && !l.isEmpty() && l.getFirst() instanceof Long s) sets.add(s);
        }
        List<Invocation> reads = new ArrayList<>();
        for (long s : sets) reads.add(new Invocation(READ, Arrays.asList(s, null)));
        return new FinalReads(reads);
    }

    @Override
    public CompletableFuture<Completion> invoke(TandemKvClient kv, Invocation inv) {
        List<?> tuple = (List<?>) inv.value();
        long s = (Long) tuple.get(0);
        boolean read = inv.f().equals(READ);
        CompletableFuture<Completion> result;
        if (read) {
            byte[] from = setPrefix(s).getBytes(StandardCharsets.UTF_8);
            byte[] to = from.clone();
            to[to.length - 1]++; // '/' + 1: the first key after every key with this prefix
            result = kv.scanAsync(from, to, SCAN_LIMIT).thenApply(page -> readCompletion(s, inv, page));
        } else if (inv.f().equals(ADD)) {
            long e = (Long) tuple.get(1);
            result = kv.putAsync(elementKey(s, e), Long.toString(e).getBytes(StandardCharsets.UTF_8)).thenApply(previous -> Completion.ok(inv.value()));
        } else {
            throw new IllegalArgumentException("the set workload has no op " + inv.f());
        }
        return result.exceptionally(e -> ClientErrors.completion(inv.value(), e, read));
    }

    private static Completion readCompletion(long s, Invocation inv, KvResult.Page page) {
        if (page.hasMore()) return Completion.fail(inv.value(), MULTI_PAGE); // never with sets below one page
        List<Object> elements = new ArrayList<>(page.entries().size());
        for (var entry : page.entries()) {
            // The stored value, not the key: a value that disagrees with its key shows up as an unexpected element.
            elements.add(Long.parseLong(new String(entry.value(), StandardCharsets.UTF_8)));
        }
        return Completion.ok(List.of(s, elements));
    }

    @Override
    public CheckOutcome check(History history) {
        return SetChecker.check(history);
    }
}
