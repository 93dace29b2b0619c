package io.tandem.sim.cost;

/**
 * Told the wall-clock time each engine handler took while a simulation runs (the calibration uses it
 * to time the real handlers on this machine). Wall time never feeds back into the simulation.
 */
@FunctionalInterface
public interface HandlerProbe {
    /**
     * @param kind      the event: {@code message}, {@code client-request}, {@code timer}, {@code storage}, ...
     * @param type      the message's type name for {@code message}, else null
     * @param bytes     the message's encoded size (0 if unknown)
     * @param wallNanos how long the handler ran
     */
    void handled(String kind, String type, long bytes, long wallNanos);
}
