package io.tandem.engine;

/**
 * Names a timer of an engine. Engines declare their timers as records (usually without
 * components, e.g. {@code record ElectionTimeout() implements TimerKey}); keys are compared with
 * {@code equals}, so scheduling a key that is already pending replaces its deadline.
 */
public interface TimerKey {}
