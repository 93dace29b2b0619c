package io.tandem.engine;

/**
 * An application that runs one state machine per shard over a group that a protocol splits into
 * shards ({@link Protocol#withShards}). For each member the protocol builds the member's
 * {@link ShardGroup} and asks the application for the engine the host runs and the listener the
 * group tells what it delivers (usually one object, wrapping the group).
 */
@FunctionalInterface
public interface ShardedApplication {
    /** One member's engine and listener. */
    record Member(Engine engine, ShardListener listener) {}

    /**
     * The application of member {@code self} over {@code group}. The group is not started yet; the
     * returned engine starts it (and forwards every other engine call but client requests to it).
     */
    Member member(NodeId self, ShardGroup group);
}
