package io.tandem.protocols.multipaxos;

import io.tandem.engine.EngineContext;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.TimerKey;
import java.util.function.BiConsumer;
import java.util.random.RandomGenerator;

/**
 * What a role may touch: the node's {@link EngineContext} (storage, execution, clients, meters),
 * the deployment, and {@link #send}, the only way to reach another role, co-located or not. Roles
 * never call each other: the node composite routes every message, and a message to a role on the
 * same node goes through its local queue like any other delivery.
 */
final class RoleContext {
    final EngineContext engine;
    final NodeId self;
    final Topology topology;
    final MultiPaxosConfig config;
    private final BiConsumer<NodeId, MultiPaxosMessage> sender;
    private final long[] tokens;

    RoleContext(EngineContext engine, Topology topology, MultiPaxosConfig config, BiConsumer<NodeId, MultiPaxosMessage> sender, long[] tokens) {
        this.engine = engine;
        this.self = engine.self();
        this.topology = topology;
        this.config = config;
        this.sender = sender;
        this.tokens = tokens;
    }

    long now() {
        return engine.nowNanos();
    }

    RandomGenerator random() {
        return engine.random();
    }

    void send(NodeId to, MultiPaxosMessage message) {
        sender.accept(to, message);
    }

    void schedule(long delayNanos, TimerKey key) {
        engine.schedule(delayNanos, key);
    }

    void cancel(TimerKey key) {
        engine.cancel(key);
    }

    /** A storage token unique on this node (storage events are routed to roles by meta key or kind, never by token). */
    long nextToken() {
        return ++tokens[0];
    }

    Meters meters() {
        return engine.meters();
    }

    /** A delay in [min, max), from the node's seeded random source. */
    long randomBetween(long minNanos, long maxNanos) {
        return maxNanos > minNanos ? minNanos + engine.random().nextLong(maxNanos - minNanos) : minNanos;
    }
}
