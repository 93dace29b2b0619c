package io.tandem.roles;

import io.tandem.engine.AdminRequest;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.GroupView;
import io.tandem.engine.Regions;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Rejection;
import io.tandem.engine.SnapshotTag;
import io.tandem.engine.TimerKey;
import io.tandem.roles.Role.Duty;
import io.tandem.sim.Inspectable;
import io.tandem.storage.DurableLog;
import io.tandem.storage.MetaStore;
import io.tandem.storage.SnapshotStore;
import io.tandem.storage.StorageEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;

/**
 * Several role engines on one node's loop (DESIGN §2.1, "role host"), itself one {@link Engine}: the
 * runtime and the simulator host it like any engine, so a node runs whatever roles its deployment
 * gives it without either of them knowing.
 *
 * <ul>
 *   <li><b>Messages</b> go to every role whose {@linkplain Role#inbox() inbox} has a supertype of the
 *       message. A role sending to its own node does not call the other role: the message joins a
 *       local FIFO queue drained after the current event, exactly as if it had come from the network
 *       (minus the wire), so placing roles together or apart never changes the protocol.</li>
 *   <li><b>Timers</b> are per role: a role's key is wrapped with the role's slot, so two roles may use
 *       equal keys and each hears only its own.</li>
 *   <li><b>Storage</b>: each role has its own meta namespace (its keys are stored under
 *       {@link Role#metaNamespace()} and {@code MetaSaved} events come back to it without the
 *       prefix); the node's single resources, the durable log and execution with its snapshots, each
 *       belong to the one role that owns that {@link Duty}; a storage failure reaches every role.</li>
 *   <li><b>Clients</b>: requests and admin requests go to the role owning {@link Duty#CLIENTS}; a node
 *       without one refuses them with a clear reason.</li>
 * </ul>
 *
 * <p>Using a resource a role does not own (the log, execution) is a programming error of the
 * protocol and fails at once with {@link IllegalStateException}, so a deployment that separates
 * roles cannot silently share what it must not.
 */
public final class RoleHost implements Engine, Inspectable {
    private record Local(NodeId from, ProtocolMessage message) {}

    /** A role's timer key, tagged with the role's slot on this host. */
    private record RoleTimer(int role, TimerKey key) implements TimerKey {
        @Override
        public String costName() {
            return key.costName();
        }
    }

    private final List<Role> roles;
    private final EnumMap<Duty, Integer> owners = new EnumMap<>(Duty.class);
    private final Supplier<EngineStatus> status;
    private final List<NodeId> clientMembers;
    private final ArrayDeque<Local> local = new ArrayDeque<>();
    private EngineContext ctx;
    private boolean draining;
    /** Which roles asked to be polled; the node polls while any does. */
    private boolean[] polling;
    private Meters.Counter localMessages;
    private Meters.Counter unroutable;

    private RoleHost(List<Role> roles, Supplier<EngineStatus> status, List<NodeId> clientMembers) {
        this.roles = List.copyOf(roles);
        this.status = status;
        this.clientMembers = clientMembers;
        for (int i = 0; i < roles.size(); i++) {
            for (Duty d : roles.get(i).duties()) owners.put(d, i);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Collects the roles of one node, in the order they start and receive a shared message. */
    public static final class Builder {
        private final List<Role> roles = new ArrayList<>();
        private Supplier<EngineStatus> status;
        private List<NodeId> clientMembers = List.of();

        private Builder() {}

        /** Adds a role; roles start, and receive a message several of them take, in the order added. */
        public Builder role(Role role) {
            for (Role r : roles) {
                if (r.name().equals(role.name())) throw new IllegalArgumentException("two roles named " + role.name() + " on one node");
                for (Duty d : role.duties()) {
                    if (r.duties().contains(d)) throw new IllegalArgumentException("roles " + r.name() + " and " + role.name() + " both claim " + d + "; a node has one");
                }
                if (r.metaNamespace().startsWith(role.metaNamespace()) || role.metaNamespace().startsWith(r.metaNamespace())) {
                    throw new IllegalArgumentException("the meta namespaces of roles " + r.name() + " ('" + r.metaNamespace() + "') and " + role.name()
                            + " ('" + role.metaNamespace() + "') overlap: saved keys could not be told apart");
                }
            }
            roles.add(role);
            return this;
        }

        /**
         * How the node describes itself ({@link Engine#status()}): the protocol composes its roles'
         * states. Without it, the status of the role owning {@link Duty#CLIENTS}.
         */
        public Builder status(Supplier<EngineStatus> status) {
            this.status = status;
            return this;
        }

        /**
         * The members that do run a role owning {@link Duty#CLIENTS}: a node without one redirects
         * client requests there ({@link Rejection.Redirect}), and the runtime forwards them.
         */
        public Builder clientsAt(List<NodeId> members) {
            this.clientMembers = List.copyOf(members);
            return this;
        }

        public RoleHost build() {
            if (roles.isEmpty()) throw new IllegalStateException("a role host needs at least one role");
            return new RoleHost(roles, status, clientMembers);
        }
    }

    /** The roles on this node, in order. */
    public List<Role> roles() {
        return roles;
    }

    /** The engine of role {@code name} on this node, if it runs here. */
    public Optional<Engine> engine(String name) {
        return roles.stream().filter(r -> r.name().equals(name)).map(Role::engine).findFirst();
    }

    // ------------------------------------------------------------------------------------------
    // Engine
    // ------------------------------------------------------------------------------------------

    @Override
    public void start(EngineContext ctx) {
        this.ctx = ctx;
        localMessages = ctx.meters().counter("tandem.roles.messages.local");
        unroutable = ctx.meters().counter("tandem.roles.messages.unroutable");
        polling = new boolean[roles.size()];
        for (int i = 0; i < roles.size(); i++) roles.get(i).engine().start(new Hosted(i));
        drain();
    }

    @Override
    public void onMessage(NodeId from, ProtocolMessage message) {
        route(from, message);
        drain();
    }

    @Override
    public void onTimer(TimerKey key) {
        // A key that is not a role's was armed by no role here (a restart's leftover): nobody hears it.
        if (key instanceof RoleTimer t && t.role() < roles.size()) roles.get(t.role()).engine().onTimer(t.key());
        drain();
    }

    @Override
    public void onClientRequest(ClientRequest request) {
        Integer owner = owners.get(Duty.CLIENTS);
        if (owner == null && !clientMembers.isEmpty()) ctx.reject(request.requestId(), new Rejection.Redirect(clientMembers));
        else if (owner == null) ctx.reject(request.requestId(), new Rejection.Unavailable(ctx.self() + " runs no role that accepts client requests (roles: " + names() + ")"));
        else roles.get(owner).engine().onClientRequest(request);
        drain();
    }

    @Override
    public boolean onAdmin(long requestId, AdminRequest request) {
        Integer owner = owners.get(Duty.CLIENTS);
        boolean taken = owner != null && roles.get(owner).engine().onAdmin(requestId, request);
        drain();
        return taken;
    }

    @Override
    public EngineStatus status() {
        if (status != null) return status.get();
        Integer owner = owners.get(Duty.CLIENTS);
        return owner == null ? EngineStatus.UNKNOWN : roles.get(owner).engine().status();
    }

    @Override
    public void onStorageEvent(StorageEvent event) {
        switch (event) {
            case StorageEvent.LogSynced s -> toOwner(Duty.LOG, s);
            case StorageEvent.MetaSaved s -> onMetaSaved(s);
            case StorageEvent.StorageFailed s -> {
                for (Role r : roles) r.engine().onStorageEvent(s);
            }
            case StorageEvent.SnapshotTaken s -> toOwner(Duty.EXECUTION, s);
            case StorageEvent.SnapshotChunkRead s -> toOwner(Duty.EXECUTION, s);
            case StorageEvent.SnapshotChunkWritten s -> toOwner(Duty.EXECUTION, s);
            case StorageEvent.SnapshotInstalled s -> toOwner(Duty.EXECUTION, s);
            case StorageEvent.SnapshotFailed s -> toOwner(Duty.EXECUTION, s);
        }
        drain();
    }

    private void onMetaSaved(StorageEvent.MetaSaved s) {
        for (Role r : roles) {
            if (s.key().startsWith(r.metaNamespace())) {
                r.engine().onStorageEvent(new StorageEvent.MetaSaved(s.key().substring(r.metaNamespace().length()), s.token()));
                return;
            }
        }
    }

    private void toOwner(Duty duty, StorageEvent event) {
        Integer owner = owners.get(duty);
        if (owner != null) roles.get(owner).engine().onStorageEvent(event);
    }

    @Override
    public void onApplied(long appliedIndex) {
        Integer owner = owners.get(Duty.EXECUTION);
        if (owner != null) roles.get(owner).engine().onApplied(appliedIndex);
        drain();
    }

    /** Results of execution go to the role that owns it (it asked for them). */
    @Override
    public void onExecuted(Committed entry, byte[] result) {
        Integer owner = owners.get(Duty.EXECUTION);
        if (owner != null) roles.get(owner).engine().onExecuted(entry, result);
        drain();
    }

    @Override
    public SnapshotTag snapshotTag(long index) {
        Integer owner = owners.get(Duty.EXECUTION);
        return owner == null ? SnapshotTag.NONE : roles.get(owner).engine().snapshotTag(index);
    }

    /** A region write reaches every role; roles ignore the regions they did not register. */
    @Override
    public void onRegionWrite(NodeId writer, String region, int offset, int length) {
        for (Role r : roles) r.engine().onRegionWrite(writer, region, offset, length);
        drain();
    }

    /** Polls the roles that asked to be polled; the node's idle strategy applies to the sum. */
    @Override
    public int doWork() {
        int work = 0;
        for (int i = 0; i < roles.size(); i++) {
            if (polling[i]) work += roles.get(i).engine().doWork();
        }
        drain();
        return work;
    }

    private void requestPolling(int slot, boolean poll) {
        boolean before = anyPolling();
        polling[slot] = poll;
        boolean after = anyPolling();
        if (before != after) ctx.requestPolling(after);
    }

    private boolean anyPolling() {
        for (boolean p : polling) {
            if (p) return true;
        }
        return false;
    }

    @Override
    public void stop() {
        for (int i = roles.size() - 1; i >= 0; i--) roles.get(i).engine().stop();
    }

    @Override
    public String inspect() {
        return roles.stream()
                .map(r -> r.name() + ": " + (r.engine() instanceof Inspectable i ? i.inspect() : r.engine().toString()))
                .collect(Collectors.joining(" | "));
    }

    @Override
    public String toString() {
        return "RoleHost" + names();
    }

    private List<String> names() {
        return roles.stream().map(Role::name).toList();
    }

    // ------------------------------------------------------------------------------------------
    // Routing
    // ------------------------------------------------------------------------------------------

    private void route(NodeId from, ProtocolMessage message) {
        boolean taken = false;
        for (Role r : roles) {
            if (r.receives(message)) {
                r.engine().onMessage(from, message);
                taken = true;
            }
        }
        if (!taken) unroutable.increment();
    }

    /** Runs the local queue to empty; messages that local deliveries send to this node join its end. */
    private void drain() {
        if (draining) return;
        draining = true;
        try {
            Local next;
            while ((next = local.pollFirst()) != null) route(next.from(), next.message());
        } finally {
            draining = false;
        }
    }

    /** What one role sees of the node: the node's context, with its own timers, meta namespace and duties. */
    private final class Hosted implements EngineContext {
        private final int slot;
        private final Role role;
        private final MetaStore meta;

        Hosted(int slot) {
            this.slot = slot;
            this.role = roles.get(slot);
            MetaStore nodeMeta = ctx.meta();
            String ns = role.metaNamespace();
            this.meta = new MetaStore() {
                @Override
                public Optional<byte[]> get(String key) {
                    return nodeMeta.get(ns + key);
                }

                @Override
                public void put(String key, byte[] value, long token) {
                    nodeMeta.put(ns + key, value, token);
                }
            };
        }

        private void require(Duty duty, String what) {
            if (!role.duties().contains(duty)) {
                Integer owner = owners.get(duty);
                throw new IllegalStateException("role " + role.name() + " on " + ctx.self() + " used " + what + ", which belongs to "
                        + (owner == null ? "no role on this node" : "role " + roles.get(owner).name()) + " (" + duty + ")");
            }
        }

        @Override
        public NodeId self() {
            return ctx.self();
        }

        @Override
        public List<NodeId> members() {
            return ctx.members();
        }

        @Override
        public long nowNanos() {
            return ctx.nowNanos();
        }

        @Override
        public RandomGenerator random() {
            return ctx.random();
        }

        @Override
        public void send(NodeId to, ProtocolMessage message) {
            if (to.equals(ctx.self())) {
                localMessages.increment();
                local.addLast(new Local(to, message));
            } else {
                ctx.send(to, message);
            }
        }

        @Override
        public TimerKey schedule(long delayNanos, TimerKey key) {
            ctx.schedule(delayNanos, new RoleTimer(slot, key));
            return key;
        }

        @Override
        public void cancel(TimerKey key) {
            ctx.cancel(new RoleTimer(slot, key));
        }

        @Override
        public DurableLog log() {
            require(Duty.LOG, "the durable log");
            return ctx.log();
        }

        @Override
        public MetaStore meta() {
            return meta;
        }

        @Override
        public SnapshotStore snapshots() {
            require(Duty.EXECUTION, "the snapshot store");
            return ctx.snapshots();
        }

        @Override
        public void deliver(Committed entry) {
            require(Duty.EXECUTION, "execution");
            ctx.deliver(entry);
        }

        @Override
        public void deliverReportingResult(Committed entry) {
            require(Duty.EXECUTION, "execution");
            ctx.deliverReportingResult(entry);
        }

        @Override
        public void serveRead(long requestId, long afterIndex) {
            require(Duty.EXECUTION, "execution");
            ctx.serveRead(requestId, afterIndex);
        }

        @Override
        public void complete(long requestId, byte[] result) {
            ctx.complete(requestId, result);
        }

        @Override
        public void reject(long requestId, Rejection reason) {
            ctx.reject(requestId, reason);
        }

        @Override
        public void takeSnapshot(long token) {
            require(Duty.EXECUTION, "snapshots");
            ctx.takeSnapshot(token);
        }

        @Override
        public Meters meters() {
            return ctx.meters();
        }

        /** Views are the node's: any role may install one (the protocol decides which role does). */
        @Override
        public void installView(GroupView view) {
            ctx.installView(view);
        }

        @Override
        public GroupView view() {
            return ctx.view();
        }

        @Override
        public Regions regions() {
            return ctx.regions();
        }

        @Override
        public void requestPolling(boolean poll) {
            RoleHost.this.requestPolling(slot, poll);
        }
    }
}
