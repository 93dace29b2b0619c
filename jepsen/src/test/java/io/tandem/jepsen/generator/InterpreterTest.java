package io.tandem.jepsen.generator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.checker.LinearizabilityChecker;
import io.tandem.checker.Model;
import io.tandem.history.History;
import io.tandem.history.Keyword;
import io.tandem.history.Op;
import io.tandem.history.Operation;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** Jepsen's process model (verification.md §2.2) over a real in-memory register. */
class InterpreterTest {
    static final Keyword READ = Keyword.of("read");
    static final Keyword WRITE = Keyword.of("write");
    /** Written values that make the register misbehave, to drive the interpreter's paths. */
    static final long THROW = -1;
    static final long HANG = -2;
    static final long UNKNOWN = -3;

    /** An atomic register shared by all clients; each client records the process and node it was opened for. */
    static final class Register {
        /** Starts empty, as the checker's register model does: a read before any write returns nil, not 0. */
        final java.util.concurrent.atomic.AtomicReference<Long> value = new java.util.concurrent.atomic.AtomicReference<>();
        final List<long[]> opened = Collections.synchronizedList(new ArrayList<>());
        final Map<Long, Boolean> failOpenFor = new ConcurrentHashMap<>();

        JepsenClient.Factory factory() {
            return (process, node) -> {
                if (failOpenFor.containsKey(process)) throw new IllegalStateException("node " + node + " refused the connection");
                opened.add(new long[] {process, node});
                return new JepsenClient() {
                    @Override
                    public CompletableFuture<Completion> invoke(Invocation inv) {
                        if (inv.f().equals(READ)) return CompletableFuture.completedFuture(Completion.ok(value.get()));
                        long v = (Long) inv.value();
                        if (v == THROW) throw new IllegalStateException("connection reset");
                        if (v == HANG) return new CompletableFuture<>();
                        if (v == UNKNOWN) return CompletableFuture.completedFuture(Completion.info(v, Keyword.of("unknown")));
                        value.set(v);
                        return CompletableFuture.completedFuture(Completion.ok(v));
                    }

                    @Override
                    public void close() {
                    }
                };
            };
        }
    }

    /** Each thread performs its own script, in order. */
    static OpSource scripts(Map<Integer, List<Invocation>> perThread) {
        Map<Integer, Deque<Invocation>> queues = new HashMap<>();
        perThread.forEach((t, ops) -> queues.put(t, new ArrayDeque<>(ops)));
        return (thread, process, random) -> {
            synchronized (queues) {
                Deque<Invocation> q = queues.get(thread);
                return q == null ? null : q.poll();
            }
        };
    }

    static Invocation write(long v) {
        return new Invocation(WRITE, v);
    }

    static List<Op> opsOf(History h, long process) {
        return h.ops().stream().filter(o -> o.process().equals(process)).toList();
    }

    @Test
    void aCrashedProcessContinuesAsProcessPlusConcurrencyWithANewClient() throws Exception {
        Register reg = new Register();
        Recorder rec = new Recorder();
        try (Interpreter in = new Interpreter(3, 2, reg.factory(), rec, Duration.ofSeconds(5), 1)) {
            in.run(scripts(Map.of(0, List.of(write(1), write(UNKNOWN), write(2)))), null, System.nanoTime() + 10_000_000_000L);
            assertThat(in.processes()).containsEntry(0, 3L).containsEntry(1, 1L).containsEntry(2, 2L);
        }
        History h = rec.history();
        assertThat(opsOf(h, 0L)).extracting(Op::type).containsExactly(Op.Type.INVOKE, Op.Type.OK, Op.Type.INVOKE, Op.Type.INFO);
        assertThat(opsOf(h, 3L)).extracting(Op::type).containsExactly(Op.Type.INVOKE, Op.Type.OK);
        // thread 0 talks to node 1 (t mod n, 1-based); its second process got a client of its own
        assertThat(reg.opened).extracting(o -> o[0] + "@" + o[1]).containsExactly("0@1", "3@1");
        assertThat(h.ops()).extracting(Op::index).isSorted();
        assertThat(h.ops()).extracting(Op::time).isSorted();
    }

    @Test
    void anOperationWithoutAnswerTimesOutAsInfoAndCrashesItsProcess() throws Exception {
        Register reg = new Register();
        Recorder rec = new Recorder();
        try (Interpreter in = new Interpreter(2, 2, reg.factory(), rec, Duration.ofMillis(200), 1)) {
            in.run(scripts(Map.of(1, List.of(write(HANG), write(5)))), null, System.nanoTime() + 10_000_000_000L);
        }
        History h = rec.history();
        List<Op> p1 = opsOf(h, 1L);
        assertThat(p1).extracting(Op::type).containsExactly(Op.Type.INVOKE, Op.Type.INFO);
        assertThat(p1.get(1).error()).isEqualTo(List.of(Keyword.of("timeout"), "no completion within 200 ms"));
        assertThat(opsOf(h, 3L)).extracting(Op::type).containsExactly(Op.Type.INVOKE, Op.Type.OK);
    }

    @Test
    void aClientThatThrowsCompletesTheOperationAsIndeterminate() throws Exception {
        Register reg = new Register();
        Recorder rec = new Recorder();
        try (Interpreter in = new Interpreter(1, 1, reg.factory(), rec, Duration.ofSeconds(5), 1)) {
            in.run(scripts(Map.of(0, List.of(write(THROW), write(4)))), null, System.nanoTime() + 10_000_000_000L);
        }
        List<Op> p0 = opsOf(rec.history(), 0L);
        assertThat(p0.get(1).type()).isEqualTo(Op.Type.INFO);
        assertThat((String) p0.get(1).error()).startsWith("indeterminate: ").contains("connection reset");
        assertThat(opsOf(rec.history(), 1L)).extracting(Op::type).containsExactly(Op.Type.INVOKE, Op.Type.OK);
    }

    @Test
    void aClientThatCannotBeOpenedFailsTheOperationWithNoClient() throws Exception {
        Register reg = new Register();
        reg.failOpenFor.put(0L, true);
        Recorder rec = new Recorder();
        try (Interpreter in = new Interpreter(1, 3, reg.factory(), rec, Duration.ofSeconds(5), 1)) {
            in.run(scripts(Map.of(0, List.of(write(1)))), null, System.nanoTime() + 10_000_000_000L);
            assertThat(in.processes()).containsEntry(0, 0L); // a :fail does not crash the process
        }
        List<Op> p0 = opsOf(rec.history(), 0L);
        assertThat(p0).extracting(Op::type).containsExactly(Op.Type.INVOKE, Op.Type.FAIL);
        assertThat(p0.get(1).error()).isEqualTo(List.of(Keyword.of("no-client"), "node 1 refused the connection"));
    }

    @Test
    void processesRunConcurrentlyAndTheHistoryOfARealRegisterIsLinearizable() throws Exception {
        Register reg = new Register();
        Recorder rec = new Recorder();
        int threads = 6;
        OpSource source = new OpSource() {
            final AtomicLong left = new AtomicLong(3000);

            @Override
            public Invocation next(int thread, long process, RandomGenerator random) {
                if (left.decrementAndGet() < 0) return null;
                return random.nextBoolean() ? new Invocation(READ, null) : write(random.nextInt(5));
            }
        };
        try (Interpreter in = new Interpreter(threads, 3, reg.factory(), rec, Duration.ofSeconds(5), 42)) {
            in.run(source, new Stagger(1_000_000), System.nanoTime() + 30_000_000_000L);
        }
        History h = rec.history();
        List<Operation> ops = h.operations(); // throws if a process ever invoked twice without completing
        assertThat(ops).hasSize(3000).allMatch(o -> o.outcome() == Op.Type.OK);
        assertThat(ops.stream().map(Operation::process).distinct()).hasSize(threads);
        assertThat(LinearizabilityChecker.check(h, Model.casRegister()).isValid()).isTrue();
    }

    @Test
    void aPhaseWithAnEndlessSourceEndsAtItsDeadline() throws Exception {
        Register reg = new Register();
        Recorder rec = new Recorder();
        OpSource endless = (thread, process, random) -> new Invocation(READ, null);
        try (Interpreter in = new Interpreter(2, 1, reg.factory(), rec, Duration.ofSeconds(5), 1)) {
            in.run(endless, new Stagger(200), System.nanoTime() + 300_000_000L); // returns: the time limit ends the phase
        }
        List<Operation> ops = rec.history().operations();
        assertThat(ops).isNotEmpty().allMatch(Operation::isCompleted);
    }
}
