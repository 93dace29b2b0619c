package io.tandem.protocols.multipaxos;

import io.tandem.engine.EngineContext;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.RequestIds;
import io.tandem.engine.TimerKey;
import java.util.random.RandomGenerator;

/**
 * What a role may touch: its {@link EngineContext} from the node's {@link io.tandem.roles.RoleHost}
 * (its own timers and meta namespace; the log, execution and clients only if its role owns them),
 * the deployment, and {@link #send}, the only way to reach another role, co-located or not. Roles
 * never call each other: the host routes every message, and a message to a role on the same node
 * goes through the host's local queue like any other delivery.
 */
final class RoleContext {
    final EngineContext engine;
    final NodeId self;
    final Topology topology;
    final MultiPaxosConfig config;
    private final Meters.Counter clientMessages;
    private final Meters.Counter backgroundMessages;
    private long tokens;

    RoleContext(EngineContext engine, Topology topology, MultiPaxosConfig config) {
        this.engine = engine;
        this.self = engine.self();
        this.topology = topology;
        this.config = config;
        this.clientMessages = engine.meters().counter("tandem.multipaxos.messages.sent", "cause", "client");
        this.backgroundMessages = engine.meters().counter("tandem.multipaxos.messages.sent", "cause", "background");
    }

    long now() {
        return engine.nowNanos();
    }

    RandomGenerator random() {
        return engine.random();
    }

    void send(NodeId to, MultiPaxosMessage message) {
        if (!to.equals(self)) (RequestIds.isBackground(message.requestId()) ? backgroundMessages : clientMessages).increment();
        engine.send(to, message);
    }

    void schedule(long delayNanos, TimerKey key) {
        engine.schedule(delayNanos, key);
    }

    void cancel(TimerKey key) {
        engine.cancel(key);
    }

    /** A storage token unique within this role (meta saves come back to the role that made them, by namespace). */
    long nextToken() {
        return ++tokens;
    }

    Meters meters() {
        return engine.meters();
    }

    /** A delay in [min, max), from the node's seeded random source. */
    long randomBetween(long minNanos, long maxNanos) {
        return maxNanos > minNanos ? minNanos + engine.random().nextLong(maxNanos - minNanos) : minNanos;
    }
}
