package io.tandem.execution;

import java.util.concurrent.Semaphore;

/**
 * The signals between workers for synchronous mode (opt-psmr.md §2.3): one channel per ordered pair
 * {@code (from, to)}. A non-executor {@code j} of a multi-group command signals {@code (j, e)} and
 * waits on {@code (e, j)}; the executor {@code e} waits on {@code (j, e)} for every other
 * destination, runs the command, then signals {@code (e, j)}. Pairwise channels matter: with one
 * counting semaphore per executor, commands whose destination sets overlap steal each other's
 * signals (pitfall 3).
 */
public interface WorkerChannels {
    /** {@code from} signals {@code to}. */
    void release(int from, int to);

    /**
     * {@code to} consumes a signal of {@code from}. With {@code block} it waits for one and returns
     * true; without it returns false at once if none is there (the deterministic stepped schedule).
     */
    boolean acquire(int from, int to, boolean block) throws InterruptedException;

    /** Pairwise semaphores, the correct channels. */
    static WorkerChannels pairwise(int threads) {
        Semaphore[][] ch = new Semaphore[threads][threads];
        for (int i = 0; i < threads; i++) for (int j = 0; j < threads; j++) ch[i][j] = new Semaphore(0);
        return new WorkerChannels() {
            @Override
            public void release(int from, int to) {
                ch[from][to].release();
            }

            @Override
            public boolean acquire(int from, int to, boolean block) throws InterruptedException {
                if (block) {
                    ch[from][to].acquire();
                    return true;
                }
                return ch[from][to].tryAcquire();
            }
        };
    }
}
