package io.tandem.routing;

import io.tandem.engine.NodeId;
import java.util.List;
import java.util.Objects;

/**
 * Where a client sends its requests (DESIGN §2.1, "replies and routing"): the one client-side
 * policy that the KV client, the simulator's clients and the Jepsen client share, so that an engine
 * says once how it wants to be reached ({@link io.tandem.engine.Protocol#routing()}) and every client
 * follows. A policy makes one {@link Router} per client; routers are deterministic (no clock, no
 * randomness), so the simulator replays them exactly.
 */
public sealed interface RoutingPolicy {
    /** Follow the leader: one member at a time, the one the last redirect named (Raft, MultiPaxos). */
    record Leader() implements RoutingPolicy {}

    /**
     * Send every attempt to {@code width} members at once and take the first reply: the members the
     * last redirect named (Copilot's pilot and copilot), filled up with others when fewer are known.
     */
    record FirstReply(int width) implements RoutingPolicy {
        public FirstReply {
            if (width < 1) throw new IllegalArgumentException("width must be >= 1, was " + width);
        }
    }

    /**
     * Any member the client knows can take a request: spread the requests round-robin over them
     * (compartmentalized MultiPaxos' batchers and proxy leaders, a leaderless read path); a client
     * that should reach only some members (the frontends) is given only those.
     */
    record AnyMember() implements RoutingPolicy {}

    /** Every attempt goes to every member; the first reply wins (multicast to groups, P-SMR). */
    record Multicast() implements RoutingPolicy {}

    static RoutingPolicy leader() {
        return new Leader();
    }

    static RoutingPolicy firstReply(int width) {
        return new FirstReply(width);
    }

    static RoutingPolicy anyMember() {
        return new AnyMember();
    }

    static RoutingPolicy multicast() {
        return new Multicast();
    }

    /**
     * A router for one client of a group with {@code members}, starting at {@code first} (clients
     * spread their first attempts over the members). Members are whatever the client addresses them
     * by: {@link NodeId}s in the simulator, client endpoints in the KV client.
     */
    default <T> Router<T> newRouter(List<T> members, T first) {
        Objects.requireNonNull(first, "first");
        if (!members.contains(first)) throw new IllegalArgumentException(first + " is not one of the members " + members);
        return new Router<>(this, members, first);
    }
}
