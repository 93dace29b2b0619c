package io.tandem.sim;

import io.tandem.codec.CodecIds;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/** A protocol for simulator tests: engines from a factory, a list of message types, optional invariants. */
final class TestProtocol implements SimulatedProtocol {
    record Ping(long seq, long requestId) implements ProtocolMessage {}

    /** What a test engine saw, with the virtual time it saw it at. */
    record Seen(NodeId node, String what, long atNanos, long value) {}

    /** Collects what the engines of a run saw; engines read virtual time through it. */
    static final class Recorder {
        SimCluster cluster;
        final List<Seen> seen = new ArrayList<>();

        void add(NodeId node, String what, long value) {
            seen.add(new Seen(node, what, cluster.nowNanos(), value));
        }

        List<Seen> of(NodeId node, String what) {
            return seen.stream().filter(s -> s.node().equals(node) && s.what().equals(what)).toList();
        }
    }

    private final BiFunction<NodeId, List<NodeId>, Engine> factory;
    private final List<Class<?>> messages;
    private final List<SimInvariant> invariants;

    TestProtocol(BiFunction<NodeId, List<NodeId>, Engine> factory, List<Class<?>> messages, List<SimInvariant> invariants) {
        this.factory = factory;
        this.messages = messages;
        this.invariants = invariants;
    }

    TestProtocol(BiFunction<NodeId, List<NodeId>, Engine> factory) {
        this(factory, List.of(Ping.class), List.of());
    }

    @Override
    public String name() {
        return "test";
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        return factory.apply(self, members);
    }

    @Override
    public void registerMessages(MessageRegistry registry) {
        int id = CodecIds.TEST_FIRST;
        for (Class<?> type : messages) registry.register(type, id++);
    }

    @Override
    public List<SimInvariant> invariants() {
        return invariants;
    }
}
