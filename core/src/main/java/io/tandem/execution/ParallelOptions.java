package io.tandem.execution;

import java.util.Objects;
import java.util.function.IntFunction;

/**
 * How a {@link ParallelExecutor} runs: the mode, the number of workers, and who schedules them.
 *
 * @param mode      {@link ExecutionMode#PSMR} or {@link ExecutionMode#OPT_PSMR}
 * @param threads   workers K (1..64); every replica and client of a service must agree on it
 * @param schedule  real threads, or one deterministic interleaving of the workers' steps derived
 *                  from a seed, run on the caller's thread (the simulator's schedule)
 * @param channels  builds the synchronous-mode signals for K workers; {@link WorkerChannels#pairwise}
 *                  except in tests of broken variants
 * @param fuzzSeed  0, or a seed for random yields and short parks of real worker threads before
 *                  each command (schedule fuzzing in tests, opt-psmr.md C2)
 */
public record ParallelOptions(ExecutionMode mode, int threads, Schedule schedule, IntFunction<WorkerChannels> channels, long fuzzSeed) {
    /** Who runs the workers' steps. */
    public sealed interface Schedule {
        /** One platform thread per worker ("tandem-psmr-&lt;i&gt;"). */
        record Threads() implements Schedule {}

        /** No threads: {@link Executor#flush()} interleaves the workers' steps in an order drawn from {@code seed}. */
        record Stepped(long seed) implements Schedule {}
    }

    public ParallelOptions {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(channels, "channels");
        if (mode == ExecutionMode.SEQUENTIAL) throw new IllegalArgumentException("the sequential mode has its own executor (ExecutorFactory.sequential())");
        if (threads < 1 || threads > ParallelStateMachine.MAX_THREADS) {
            throw new IllegalArgumentException("threads must be in [1, " + ParallelStateMachine.MAX_THREADS + "], was " + threads);
        }
    }

    public static ParallelOptions of(ExecutionMode mode, int threads) {
        return new ParallelOptions(mode, threads, new Schedule.Threads(), WorkerChannels::pairwise, 0);
    }

    /** The same executor, its workers' steps interleaved deterministically from {@code seed} on the caller's thread. */
    public ParallelOptions stepped(long seed) {
        return new ParallelOptions(mode, threads, new Schedule.Stepped(seed), channels, fuzzSeed);
    }

    public ParallelOptions withChannels(IntFunction<WorkerChannels> c) {
        return new ParallelOptions(mode, threads, schedule, c, fuzzSeed);
    }

    public ParallelOptions fuzzed(long seed) {
        return new ParallelOptions(mode, threads, schedule, channels, seed);
    }
}
