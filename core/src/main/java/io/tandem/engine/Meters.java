package io.tandem.engine;

/**
 * Metrics for engines (DESIGN §9), without tying engines to a metrics library or a clock. Names
 * follow {@code tandem.<area>.<what>}; the runtime adds the {@code node} and {@code protocol} tags.
 * Implementations cache meters by name and tags, so engines may look them up once and keep them.
 */
public interface Meters {
    interface Counter {
        void increment(long amount);

        default void increment() {
            increment(1);
        }

        long count();
    }

    interface Gauge {
        void set(long value);

        long value();
    }

    interface Distribution {
        void record(long value);
    }

    /** A counter; {@code tags} are alternating keys and values, e.g. {@code "peer", "n2"}. */
    Counter counter(String name, String... tags);

    Gauge gauge(String name, String... tags);

    Distribution distribution(String name, String... tags);

    /**
     * Reports a fail-slow symptom (DESIGN §3, rule 5): a peer whose outbox or lag grows, a commit
     * that waited on a single peer, a resend storm. Counted in {@code tandem.slowness.warnings}
     * (tags {@code kind}, {@code peer}) and logged at most once per interval per kind and peer.
     */
    void slownessWarning(String kind, NodeId peer, String detail);
}
