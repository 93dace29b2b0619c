package io.tandem.sim.cost;

/** The virtual clock and event queue the cost model runs on (the simulation's own). */
public interface Scheduler {
    /** Virtual time now, in nanoseconds. */
    long now();

    /** Runs {@code action} at virtual time {@code atNanos} (never earlier than now). */
    void at(long atNanos, Runnable action);
}
