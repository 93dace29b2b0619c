package io.tandem.execution;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.concurrent.atomic.AtomicInteger;

/** Executor factories for the execution modes, as chosen by a service's configuration. */
public final class ParallelExecutors {
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private ParallelExecutors() {}

    /**
     * The executor for {@code mode} with {@code threads} workers: {@link ExecutorFactory#sequential()}
     * for the sequential mode (which takes no thread count but 1), a {@link ParallelExecutor} otherwise.
     */
    public static ExecutorFactory forMode(ExecutionMode mode, int threads) {
        if (mode == ExecutionMode.SEQUENTIAL) {
            if (threads != 1) throw new IllegalArgumentException("the sequential mode runs on one thread; threads must be 1, was " + threads);
            return ExecutorFactory.sequential();
        }
        return of(ParallelOptions.of(mode, threads), null);
    }

    /**
     * A factory of parallel executors; their state machines must implement {@link ParallelStateMachine}.
     * With a registry, each executor registers {@code tandem.execution.executed} (per worker),
     * {@code tandem.execution.synchronous}, {@code .checked}, {@code .failed}, {@code .resends} and the
     * gauge {@code tandem.execution.fail.rate}, tagged with the mode and an executor number.
     */
    public static ExecutorFactory of(ParallelOptions options, MeterRegistry registry) {
        return (stateMachine, listener, limits) -> {
            if (!(stateMachine instanceof ParallelStateMachine p)) {
                throw new IllegalArgumentException("execution mode " + options.mode() + " needs a state machine that declares its conflicts (ParallelStateMachine); "
                        + stateMachine.getClass().getName() + " does not: use the sequential mode");
            }
            ParallelExecutor x = new ParallelExecutor(p, listener, limits, options);
            if (registry != null) bind(registry, x, Tags.of("mode", options.mode().text(), "executor", Integer.toString(INSTANCES.incrementAndGet())));
            return x;
        };
    }

    static void bind(MeterRegistry registry, ParallelExecutor x, Tags tags) {
        ParallelStats s = x.stats();
        for (int i = 0; i < s.threads(); i++) {
            int worker = i;
            FunctionCounter.builder("tandem.execution.executed", s, st -> st.executed(worker)).tags(tags.and("worker", Integer.toString(i)))
                    .description("commands executed by this worker (per-thread load)").register(registry);
        }
        FunctionCounter.builder("tandem.execution.synchronous", s, ParallelStats::synchronous).tags(tags).description("commands run in lock-step").register(registry);
        FunctionCounter.builder("tandem.execution.checked", s, ParallelStats::checked).tags(tags).description("optimistic commands checked").register(registry);
        FunctionCounter.builder("tandem.execution.failed", s, ParallelStats::failed).tags(tags).description("optimistic commands that failed the safety check").register(registry);
        FunctionCounter.builder("tandem.execution.resends", s, ParallelStats::resends).tags(tags).description("conservative copies re-sent").register(registry);
        Gauge.builder("tandem.execution.fail.rate", s, ParallelStats::failRate).tags(tags).description("failed / checked").register(registry);
    }
}
