package io.tandem.engine;

/**
 * Names a timer of an engine. Engines declare their timers as records (usually without
 * components, e.g. {@code record ElectionTimeout() implements TimerKey}); keys are compared with
 * {@code equals}, so scheduling a key that is already pending replaces its deadline.
 */
public interface TimerKey {
    /**
     * The name the performance simulator's cost table knows this timer by ({@code loop.timer.<name>.ns},
     * falling back to {@code loop.timer.ns}): the key's class name without its package, e.g.
     * {@code ProxyLeader$AnnounceTimer}. A key that wraps another (a role host's) gives the inner one's.
     */
    default String costName() {
        String n = getClass().getName();
        return n.substring(n.lastIndexOf('.') + 1);
    }
}
