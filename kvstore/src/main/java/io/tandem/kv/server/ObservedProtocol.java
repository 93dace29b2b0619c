package io.tandem.kv.server;

import io.tandem.codec.MessageRegistry;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.raft.RaftEngine;
import io.tandem.sim.Inspectable;
import io.tandem.storage.StorageEvent;
import java.util.List;
import java.util.Objects;

/**
 * Wraps a {@link Protocol} so the server can report what its engine knows (role, leader, term,
 * commit index) without touching the engine from another thread: the engine's state is read on
 * the node's loop right after each engine call and published through volatile fields. Reading
 * four fields per call is cheap, and a new {@link EngineState} is allocated only when the role,
 * leader or term changes.
 */
final class ObservedProtocol implements Protocol {
    private static final org.slf4j.Logger logger = org.slf4j.LoggerFactory.getLogger(ObservedProtocol.class);
    /** What the engine reported at its last call. */
    record EngineState(String role, NodeId leader, long term) {
        static final EngineState UNKNOWN = new EngineState("UNKNOWN", null, -1);
    }

    /** How often the engine's one-line description is refreshed for status requests. */
    private static final long DETAIL_INTERVAL_NANOS = 250_000_000L;

    private final Protocol delegate;
    private volatile Observed engine;

    ObservedProtocol(Protocol delegate) {
        this.delegate = Objects.requireNonNull(delegate);
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        Observed e = new Observed(self, delegate.createEngine(self, members));
        engine = e;
        return e;
    }

    @Override
    public void registerMessages(MessageRegistry registry) {
        delegate.registerMessages(registry);
    }

    EngineState state() {
        Observed e = engine;
        return e == null ? EngineState.UNKNOWN : e.state;
    }

    /** The commit index, or -1 if the engine does not report one. */
    long commitIndex() {
        Observed e = engine;
        return e == null ? -1 : e.commitIndex;
    }

    /** The engine's one-line state (at most {@link #DETAIL_INTERVAL_NANOS} old while the engine runs), or "". */
    String detail() {
        Observed e = engine;
        return e == null ? "" : e.detail;
    }

    private static final class Observed implements Engine {
        private final NodeId self;
        private final Engine engine;
        private final RaftEngine raft;
        private final Inspectable inspectable;
        private volatile EngineState state = EngineState.UNKNOWN;
        private volatile long commitIndex = -1;
        private volatile String detail = "";
        private long detailAt;

        Observed(NodeId self, Engine engine) {
            this.self = self;
            this.engine = engine;
            this.raft = engine instanceof RaftEngine r ? r : null;
            this.inspectable = engine instanceof Inspectable i ? i : null;
        }

        @Override
        public void start(EngineContext ctx) {
            engine.start(ctx);
            observe();
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            engine.onMessage(from, message);
            observe();
        }

        @Override
        public void onTimer(TimerKey key) {
            engine.onTimer(key);
            observe();
        }

        @Override
        public void onClientRequest(ClientRequest request) {
            engine.onClientRequest(request);
            observe();
        }

        @Override
        public void onStorageEvent(StorageEvent event) {
            engine.onStorageEvent(event);
            observe();
        }

        @Override
        public void onApplied(long appliedIndex) {
            engine.onApplied(appliedIndex);
            observe();
        }

        @Override
        public void stop() {
            engine.stop();
            state = EngineState.UNKNOWN;
        }

        /** Runs on the loop thread, right after an engine call. */
        private void observe() {
            if (raft != null) {
                String role = raft.role().name();
                NodeId leader = raft.leaderId();
                long term = raft.currentTerm();
                EngineState s = state;
                if (!role.equals(s.role()) || !Objects.equals(leader, s.leader()) || term != s.term()) {
                    state = new EngineState(role, leader, term);
                    // An operator reading one node's log should see every leadership change it took part in.
                    if (!role.equals(s.role()) || !Objects.equals(leader, s.leader())) {
                        logger.info("{}: {} in term {}, leader {}", self, role.toLowerCase(java.util.Locale.ROOT), term, leader == null ? "unknown" : leader);
                    }
                }
                long commit = raft.commitIndex();
                if (commit != commitIndex) commitIndex = commit;
            }
            if (inspectable != null) {
                long now = System.nanoTime();
                if (now - detailAt >= DETAIL_INTERVAL_NANOS || detailAt == 0) {
                    detailAt = now;
                    detail = inspectable.inspect();
                }
            }
        }
    }
}
