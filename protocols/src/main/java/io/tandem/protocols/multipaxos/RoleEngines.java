package io.tandem.protocols.multipaxos;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToAcceptor;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToFrontend;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToLeader;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToProxy;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToReplica;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToUnbatcher;
import io.tandem.engine.Committed;
import io.tandem.storage.StorageEvent;
import java.util.function.Function;

/**
 * The MultiPaxos roles as engines of the node's {@link io.tandem.roles.RoleHost}. Each makes its
 * role once the host hands it its own context (so the role's timers, meta keys and duties are the
 * host's business), then passes the events the host routes to it. The host only delivers a message
 * to a role whose inbox type it has, so the casts below cannot fail.
 */
final class RoleEngines {
    private RoleEngines() {}

    /** A role made at start from the context the host gives it. */
    abstract static class Hosted<R> implements Engine {
        private final Topology topology;
        private final MultiPaxosConfig config;
        private final Function<RoleContext, R> make;
        R role;

        Hosted(Topology topology, MultiPaxosConfig config, Function<RoleContext, R> make) {
            this.topology = topology;
            this.config = config;
            this.make = make;
        }

        @Override
        public final void start(EngineContext ctx) {
            role = make.apply(new RoleContext(ctx, topology, config));
            begin();
        }

        void begin() {}

        @Override
        public void onTimer(TimerKey key) {}

        /** Only the frontend owns client requests; the host gives them to no other role. */
        @Override
        public void onClientRequest(ClientRequest request) {
            throw new IllegalStateException("a client request reached a " + getClass().getSimpleName());
        }
    }

    static final class AcceptorRole extends Hosted<Acceptor> {
        AcceptorRole(Topology topology, MultiPaxosConfig config, Function<RoleContext, Acceptor> make) {
            super(topology, config, make);
        }

        @Override
        void begin() {
            role.start();
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            role.onMessage(from, (ToAcceptor) message);
        }

        @Override
        public void onStorageEvent(StorageEvent event) {
            role.onStorageEvent(event);
        }
    }

    static final class ReplicaRole extends Hosted<Replica> {
        ReplicaRole(Topology topology, MultiPaxosConfig config, Function<RoleContext, Replica> make) {
            super(topology, config, make);
        }

        @Override
        void begin() {
            role.start();
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            role.onMessage(from, (ToReplica) message);
        }

        @Override
        public void onTimer(TimerKey key) {
            if (key instanceof Replica.Timer t) role.onTimer(t);
        }

        @Override
        public void onStorageEvent(StorageEvent event) {
            role.onStorageEvent(event);
        }

        @Override
        public void onApplied(long appliedIndex) {
            role.onApplied(appliedIndex);
        }

        @Override
        public void onExecuted(Committed entry, byte[] result) {
            role.onExecuted(entry, result);
        }
    }

    static final class UnbatcherRole extends Hosted<Unbatcher> {
        UnbatcherRole(Topology topology, MultiPaxosConfig config, Function<RoleContext, Unbatcher> make) {
            super(topology, config, make);
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            role.onMessage(from, (ToUnbatcher) message);
        }
    }

    static final class LeaderRole extends Hosted<Leader> {
        LeaderRole(Topology topology, MultiPaxosConfig config, Function<RoleContext, Leader> make) {
            super(topology, config, make);
        }

        @Override
        void begin() {
            role.start();
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            role.onMessage(from, (ToLeader) message);
        }

        @Override
        public void onTimer(TimerKey key) {
            if (key instanceof Leader.Timer t) role.onTimer(t);
        }

        @Override
        public void onStorageEvent(StorageEvent event) {
            role.onStorageEvent(event);
        }
    }

    static final class ProxyRole extends Hosted<ProxyLeader> {
        ProxyRole(Topology topology, MultiPaxosConfig config, Function<RoleContext, ProxyLeader> make) {
            super(topology, config, make);
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            role.onMessage(from, (ToProxy) message);
        }

        @Override
        public void onTimer(TimerKey key) {
            if (key instanceof ProxyLeader.Timer t) role.onTimer(t);
        }
    }

    static final class FrontendRole extends Hosted<Frontend> {
        FrontendRole(Topology topology, MultiPaxosConfig config, Function<RoleContext, Frontend> make) {
            super(topology, config, make);
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            role.onMessage(from, (ToFrontend) message);
        }

        @Override
        public void onTimer(TimerKey key) {
            if (key instanceof Frontend.Timer t) role.onTimer(t);
        }

        @Override
        public void onClientRequest(ClientRequest request) {
            role.onClientRequest(request);
        }

        @Override
        public void onStorageEvent(StorageEvent event) {
            if (event instanceof StorageEvent.StorageFailed) role.onStorageFailed();
        }
    }
}
