package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import java.util.List;

/** Per-node outcomes of nemesis actions that talk to a node and may find it paused or down. */
final class Nodes {
    private Nodes() {}

    /** Runs {@code action}; returns {@code ok} or {@code [:error "message"]}. */
    static Object attempt(Action action, Object ok) {
        try {
            action.run();
            return ok;
        } catch (RuntimeException e) {
            return List.of(Keyword.of("error"), String.valueOf(e.getMessage()));
        }
    }

    @FunctionalInterface
    interface Action {
        void run();
    }
}
