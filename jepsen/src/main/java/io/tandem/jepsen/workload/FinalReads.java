package io.tandem.jepsen.workload;

import io.tandem.history.Op;
import io.tandem.jepsen.generator.Invocation;
import io.tandem.jepsen.generator.OpSource;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Final reads (Jepsen's {@code gen/until-ok} over each key): every read is retried until it succeeds,
 * by whichever thread is free; a thread waits while reads are in flight that may still need a retry,
 * and the phase ends when every read has succeeded (or at the phase's deadline).
 */
final class FinalReads implements OpSource {
    private final Deque<Invocation> todo;
    private int inFlight;

    FinalReads(List<Invocation> reads) {
        this.todo = new ArrayDeque<>(reads);
    }

    @Override
    public synchronized Invocation next(int thread, long process, RandomGenerator random) throws InterruptedException {
        while (todo.isEmpty()) {
            if (inFlight == 0) return null;
            wait(); // woken by completed(): an operation in flight ends within the interpreter's op timeout
        }
        inFlight++;
        return todo.poll();
    }

    @Override
    public synchronized void completed(int thread, Invocation invocation, Op.Type outcome) {
        inFlight--;
        if (outcome != Op.Type.OK) todo.addFirst(invocation);
        notifyAll();
    }
}
