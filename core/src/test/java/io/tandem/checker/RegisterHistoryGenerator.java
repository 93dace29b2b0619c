package io.tandem.checker;

import io.tandem.history.History;
import io.tandem.history.HistoryBuilder;
import io.tandem.history.Keyword;
import io.tandem.history.Op;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Generates histories of concurrent clients on (keyed) cas registers by simulating them: a process
 * invokes, its operation takes effect at some later moment (its linearization point) against the true
 * register state, and it completes later still. Completions may be {@code :info} (the operation took
 * effect, or will later, or never), failed CASes complete {@code :fail}, some operations never complete,
 * and after an {@code :info} the process continues under a new number, as Jepsen does. Without a
 * {@link Bug} every generated history is linearizable by construction.
 */
final class RegisterHistoryGenerator {
    static final Keyword READ = Keyword.of("read");
    static final Keyword WRITE = Keyword.of("write");
    static final Keyword CAS = Keyword.of("cas");

    /** A fault to inject once, at a random operation; it may or may not make the history illegal. */
    enum Bug {
        NONE,
        /** A read returns a random value instead of the current one. */
        STALE_READ,
        /** A write is acknowledged but never applied. */
        LOST_WRITE,
        /** A successful CAS's effect is applied again later, after another operation changed the register. */
        DUPLICATED_CAS,
        /** An operation that took effect completes {@code :fail}. */
        FAIL_WITH_EFFECT
    }

    /**
     * @param operations client operations to invoke in total
     * @param processes concurrent client threads
     * @param keys number of keys; 0 for a single register with plain values, else {@code [k v]} tuples
     * @param values register values are drawn from {@code 0..values-1}
     * @param infoPercent chance that a completion is {@code :info}
     * @param pendingPercent chance that an operation still running at the end is left uncompleted
     */
    record Config(int operations, int processes, int keys, int values, int infoPercent, int pendingPercent, Bug bug) {
        Config withBug(Bug newBug) {
            return new Config(operations, processes, keys, values, infoPercent, pendingPercent, newBug);
        }
    }

    private final Config config;
    private final SplittableRandom random;
    private final HistoryBuilder history = History.builder();
    private final Map<Long, Long> registers = new HashMap<>(); // key -> value; absent = nil
    private final long[] processOf;
    private final Running[] running;
    private final List<Running> zombies = new ArrayList<>(); // :info ops that may still take effect
    private long time;
    private int invoked;
    private int bugAt;
    private Running duplicate; // a CAS waiting to be applied again (Bug.DUPLICATED_CAS)
    private boolean abandonedDecided;

    private static final class Running {
        final Keyword f;
        final long key;
        final Long argument;
        final Long expected;
        boolean applied;
        boolean succeeded; // a cas found its expected value
        Long result;
        boolean bugged;

        Running(Keyword f, long key, Long argument, Long expected) {
            this.f = f;
            this.key = key;
            this.argument = argument;
            this.expected = expected;
        }
    }

    private RegisterHistoryGenerator(Config config, long seed) {
        this.config = config;
        this.random = new SplittableRandom(seed);
        this.processOf = new long[config.processes()];
        for (int t = 0; t < processOf.length; t++) {
            processOf[t] = t;
        }
        this.running = new Running[config.processes()];
        // In the first half, so that later operations have a chance to observe the bug.
        this.bugAt = config.bug() == Bug.NONE ? -1 : random.nextInt(Math.max(1, config.operations() / 2));
    }

    static History generate(Config config, long seed) {
        return new RegisterHistoryGenerator(config, seed).run();
    }

    private History run() {
        while (invoked < config.operations() || anyRunning()) {
            int choice = random.nextInt(3);
            int thread = random.nextInt(running.length);
            Running op = running[thread];
            if (op == null) {
                if (invoked < config.operations() && choice == 0) {
                    invoke(thread);
                }
            } else if (!op.applied && choice == 1) {
                apply(op);
            } else if (op.applied && choice == 2) {
                complete(thread, op);
            } else if (choice == 2 && random.nextInt(100) < config.infoPercent()) {
                // Times out before taking effect: it may still take effect later, or never.
                crash(thread, op);
            }
            if (!zombies.isEmpty() && random.nextInt(8) == 0) {
                Running zombie = zombies.remove(random.nextInt(zombies.size()));
                if (random.nextBoolean()) {
                    apply(zombie);
                }
            }
            if (duplicate != null && random.nextInt(4) == 0 && !duplicate.argument.equals(registers.get(duplicate.key))) {
                // The CAS's effect is applied a second time (say, a replicated log entry replayed twice)
                // after another operation changed the register, resurrecting its new value.
                registers.put(duplicate.key, duplicate.argument);
                duplicate = null;
            }
        }
        // Processes still running at the end: leave some uncompleted, finish the others.
        return history.build();
    }

    private boolean anyRunning() {
        if (invoked >= config.operations() && !abandonedDecided) {
            // Some operations still running when the test ends never complete (Jepsen then treats
            // them as :info); they may still take effect.
            abandonedDecided = true;
            for (int t = 0; t < running.length; t++) {
                if (running[t] != null && random.nextInt(100) < config.pendingPercent()) {
                    if (!running[t].applied) {
                        zombies.add(running[t]);
                    }
                    running[t] = null;
                }
            }
        }
        for (Running op : running) {
            if (op != null) {
                return true;
            }
        }
        return false;
    }

    private void invoke(int thread) {
        long key = config.keys() == 0 ? 0 : random.nextInt(config.keys());
        boolean bugged = invoked == bugAt;
        int kind = !bugged ? random.nextInt(3) : switch (config.bug()) {
            case STALE_READ -> 0;
            case LOST_WRITE, FAIL_WITH_EFFECT -> 1;
            case DUPLICATED_CAS, NONE -> 2;
        };
        Running op = switch (kind) {
            case 0 -> new Running(READ, key, null, null);
            case 1 -> new Running(WRITE, key, randomValue(), null);
            default -> {
                // The CAS to be duplicated expects the current value (possibly nil), so it likely succeeds.
                Long expected = bugged ? registers.get(key) : randomValue();
                yield new Running(CAS, key, randomValue(), expected);
            }
        };
        op.bugged = bugged;
        Object value = switch (kind) {
            case 0 -> null;
            case 1 -> op.argument;
            default -> Arrays.asList(op.expected, op.argument);
        };
        running[thread] = op;
        history.invoke(++time, processOf[thread], op.f, wrap(key, value));
        invoked++;
    }

    private void apply(Running op) {
        op.applied = true;
        Long current = registers.get(op.key);
        if (op.f == READ) {
            op.result = current;
            if (op.bugged && config.bug() == Bug.STALE_READ) {
                op.result = random.nextInt(4) == 0 ? null : randomValue();
            }
        } else if (op.f == WRITE) {
            if (!(op.bugged && config.bug() == Bug.LOST_WRITE)) {
                registers.put(op.key, op.argument);
            }
        } else {
            op.succeeded = Objects.equals(op.expected, current);
            if (op.succeeded) {
                registers.put(op.key, op.argument);
                if (op.bugged && config.bug() == Bug.DUPLICATED_CAS) {
                    duplicate = op;
                }
            }
        }
    }

    private void complete(int thread, Running op) {
        long process = processOf[thread];
        running[thread] = null;
        if (random.nextInt(100) < config.infoPercent()) {
            history.info(++time, process, wrap(op.key, invocationValue(op)), Keyword.of("timeout"));
            renumber(thread);
            return;
        }
        boolean failed = op.f == CAS && !op.succeeded;
        if (op.bugged && config.bug() == Bug.FAIL_WITH_EFFECT && op.f != READ) {
            failed = true;
        }
        if (failed) {
            history.fail(++time, process, wrap(op.key, invocationValue(op)), Keyword.of("precondition"));
        } else {
            history.ok(++time, process, wrap(op.key, op.f == READ ? op.result : invocationValue(op)));
        }
    }

    private void crash(int thread, Running op) {
        history.info(++time, processOf[thread], wrap(op.key, invocationValue(op)), Keyword.of("timeout"));
        running[thread] = null;
        zombies.add(op);
        renumber(thread);
    }

    private void renumber(int thread) {
        processOf[thread] += config.processes();
    }

    private static Object invocationValue(Running op) {
        if (op.f == READ) {
            return null;
        }
        return op.f == WRITE ? op.argument : Arrays.asList(op.expected, op.argument);
    }

    private Object wrap(long key, Object value) {
        return config.keys() == 0 ? value : Arrays.asList(key, value);
    }

    private Long randomValue() {
        return (long) random.nextInt(config.values());
    }

    /** Number of client operations of each outcome, for sanity checks on the generator itself. */
    static Map<Op.Type, Integer> outcomes(History history) {
        Map<Op.Type, Integer> counts = new HashMap<>();
        history.operations().forEach(o -> counts.merge(o.outcome(), 1, Integer::sum));
        return counts;
    }
}
