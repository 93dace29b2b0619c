package io.tandem.jepsen.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.history.History;
import io.tandem.history.HistoryBuilder;
import io.tandem.history.Keyword;
import io.tandem.history.Op;
import io.tandem.jepsen.generator.Invocation;
import io.tandem.jepsen.generator.OpSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RegisterWorkloadTest {
    private static final WorkloadSpec SPEC = WorkloadSpec.parse("t", "{:ops-per-key 100 :values 5}");

    @Test
    void threadsWorkInGroupsOnOneKeyAtATimeWithReadersReserved() throws Exception {
        RegisterWorkload w = new RegisterWorkload(SPEC, 3); // concurrency 2n = 6 in groups of 6, 3 readers
        OpSource gen = w.generator(12); // two groups of 6 threads
        SplittableRandom r = new SplittableRandom(1);
        Map<Long, Set<Integer>> threadsOfKey = new HashMap<>();
        Map<Long, Integer> opsOfKey = new HashMap<>();
        Map<Integer, Long> currentKeyOfGroup = new HashMap<>();
        for (int round = 0; round < 150; round++) {
            for (int t = 0; t < 12; t++) {
                Invocation inv = gen.next(t, t, r);
                List<?> tuple = (List<?>) inv.value();
                long k = (Long) tuple.get(0);
                threadsOfKey.computeIfAbsent(k, x -> new HashSet<>()).add(t);
                opsOfKey.merge(k, 1, Integer::sum);
                currentKeyOfGroup.put(t / 6, k);
                if (t % 6 < 3) assertThat(inv.f()).isEqualTo(Keyword.of("read"));
                else assertThat(inv.f()).isIn(Keyword.of("write"), Keyword.of("cas"));
                if (inv.f().equals(Keyword.of("cas"))) assertThat((List<?>) tuple.get(1)).hasSize(2);
            }
        }
        // Each key belongs to one group; every finished key got its jittered limit, x[0.9, 1.0) of 100.
        threadsOfKey.values().forEach(ts -> assertThat(ts.stream().map(t -> t / 6).distinct()).hasSize(1));
        opsOfKey.forEach((k, n) -> {
            if (!currentKeyOfGroup.containsValue(k)) assertThat(n).isBetween(90, 100);
        });
        assertThat(opsOfKey).hasSizeGreaterThan(10);
    }

    @Test
    void aKeyIsDoneAfterTwentyDistinctProcessesLikeJepsensProcessLimit() throws Exception {
        RegisterWorkload w = new RegisterWorkload(SPEC, 1); // groups of 2 threads
        OpSource gen = w.generator(2);
        SplittableRandom r = new SplittableRandom(3);
        // Thread 0 crashes after every op (a new process each time, p + 2); thread 1 keeps its process.
        long first = (Long) ((List<?>) gen.next(0, 0, r).value()).get(0);
        assertThat((Long) ((List<?>) gen.next(1, 1, r).value()).get(0)).isEqualTo(first);
        for (long p = 2; p < 2 * 19; p += 2) {
            assertThat((Long) ((List<?>) gen.next(0, p, r).value()).get(0)).as("process %d", p).isEqualTo(first);
        }
        // 20 distinct processes (0, 1, 2, ..., 36) have worked on the key: the 21st starts the next key.
        assertThat((Long) ((List<?>) gen.next(0, 38, r).value()).get(0)).isEqualTo(first + 1);
    }

    @Test
    void theMixHasAThirdWritesAndTwoThirdsCas() throws Exception {
        RegisterWorkload w = new RegisterWorkload(SPEC, 5);
        OpSource gen = w.generator(10);
        SplittableRandom r = new SplittableRandom(2);
        int writes = 0;
        int cas = 0;
        for (int i = 0; i < 30_000; i++) {
            Invocation inv = gen.next(9, 9, r); // a writer thread
            if (inv.f().name().equals("write")) writes++;
            else cas++;
        }
        assertThat(writes / 30_000.0).isBetween(0.31, 0.36);
        assertThat(cas / 30_000.0).isBetween(0.64, 0.69);
    }

    @Test
    void finalReadsCoverEveryKeyTheHistoryTouched() throws Exception {
        RegisterWorkload w = new RegisterWorkload(SPEC, 5);
        HistoryBuilder h = History.builder();
        h.invoke(1, 0, Keyword.of("write"), List.of(3L, 1L));
        h.ok(2, 0, List.of(3L, 1L));
        h.invoke(3, 1, Keyword.of("cas"), List.of(7L, List.of(1L, 2L)));
        h.nemesis(4, Keyword.of("kill"), Keyword.of("one"));
        OpSource fin = w.finalGenerator(h.build());
        List<Object> keys = new ArrayList<>();
        Invocation inv;
        while ((inv = fin.next(0, 0, new SplittableRandom(1))) != null) {
            keys.add(((List<?>) inv.value()).get(0));
            fin.completed(0, inv, keys.size() == 1 ? Op.Type.FAIL : Op.Type.OK); // the first read fails and comes back
        }
        assertThat(keys).containsExactly(3L, 3L, 7L);
    }

    @Test
    void checksWithTheCasRegisterModelPerKeyAndStrictNilReads() {
        RegisterWorkload w = new RegisterWorkload(SPEC, 5);
        HistoryBuilder ok = History.builder();
        ok.invoke(1, 0, Keyword.of("read"), java.util.Arrays.asList(1L, null));
        ok.ok(2, 0, java.util.Arrays.asList(1L, null));
        ok.invoke(3, 0, Keyword.of("write"), List.of(1L, 4L));
        ok.ok(4, 0, List.of(1L, 4L));
        ok.invoke(5, 1, Keyword.of("cas"), List.of(1L, List.of(4L, 2L)));
        ok.ok(6, 1, List.of(1L, List.of(4L, 2L)));
        assertThat(w.check(ok.build()).verdict()).isEqualTo(Verdict.VALID);

        HistoryBuilder stale = History.builder();
        stale.invoke(1, 0, Keyword.of("write"), List.of(1L, 4L));
        stale.ok(2, 0, List.of(1L, 4L));
        stale.invoke(3, 1, Keyword.of("read"), java.util.Arrays.asList(1L, null));
        stale.ok(4, 1, java.util.Arrays.asList(1L, null)); // the key was written: an absent read is stale
        CheckOutcome bad = w.check(stale.build());
        assertThat(bad.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(bad.results()).containsKey(Keyword.of("failures"));
        assertThat((String) bad.results().get(Keyword.of("report"))).contains("Not linearizable");
    }
}
