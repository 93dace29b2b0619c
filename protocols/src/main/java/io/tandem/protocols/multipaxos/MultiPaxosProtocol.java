package io.tandem.protocols.multipaxos;

import io.tandem.roles.Deployment;
import io.tandem.roles.RoleCatalog;
import java.util.Optional;
import io.tandem.codec.CodecIds;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.protocols.failslow.SlownessDetector;
import io.tandem.sim.SimInvariant;
import io.tandem.sim.SimulatedProtocol;
import io.tandem.storage.SnapshotMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * MultiPaxos built from separate roles (proposer/leader, acceptor, replica, frontend) as a Tandem
 * {@link io.tandem.engine.Protocol}; {@link #createEngine} gives the node composite
 * ({@link MultiPaxosEngine}) hosting the roles the deployment puts on that node. Under the simulator
 * it adds the MultiPaxos safety invariants ({@link #invariants()}).
 */
public final class MultiPaxosProtocol implements SimulatedProtocol {
    public static final String NAME = "multipaxos";

    /** MultiPaxos' roles, for reading deployment files: leader, acceptor, replica, frontend. */
    public static final RoleCatalog ROLES = Topology.ROLES;

    /** Every role on every member: the classic deployment, and the default. */
    public static final Deployment CLASSIC = Deployment.everywhere(ROLES);

    private final String name;
    private final MultiPaxosConfig config;
    private final Roles roles;
    /** Slowness warning kinds a run may raise; null: the detector is not checked. */
    private final Set<String> toleratedWarnings;
    /** Set once the invariants were asked for: engines created from then on keep the histories they read. */
    private volatile boolean observed;

    public MultiPaxosProtocol() {
        this(MultiPaxosConfig.DEFAULTS);
    }

    public MultiPaxosProtocol(MultiPaxosConfig config) {
        this(config, null);
    }

    private MultiPaxosProtocol(MultiPaxosConfig config, Set<String> toleratedWarnings) {
        this(NAME, config, Roles.STANDARD, toleratedWarnings);
    }

    /** A protocol whose nodes make their roles with {@code roles} (tests plant broken roles so, under their own name). */
    MultiPaxosProtocol(String name, MultiPaxosConfig config, Roles roles, Set<String> toleratedWarnings) {
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.roles = Objects.requireNonNull(roles, "roles");
        this.toleratedWarnings = toleratedWarnings;
    }

    /** Every kind of slowness warning the leader raises. */
    public static final Set<String> WARNING_KINDS = SlownessDetector.KINDS;

    /**
     * The same protocol whose simulator invariants also require a quiet slowness detector: a warning
     * of any kind not listed fails the run.
     */
    public MultiPaxosProtocol checkingSlowness(String... toleratedKinds) {
        return new MultiPaxosProtocol(name, config, roles, Set.of(toleratedKinds));
    }

    public MultiPaxosConfig config() {
        return config;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        if (!members.contains(self)) throw new IllegalArgumentException(self + " is not among the members " + members);
        return new MultiPaxosEngine(self, members, config, observed, roles);
    }

    @Override
    public Optional<RoleCatalog> roles() {
        return Optional.of(ROLES);
    }

    /** The same protocol (and settings) with its roles placed as {@code deployment} says. */
    @Override
    public MultiPaxosProtocol withDeployment(Deployment deployment) {
        return new MultiPaxosProtocol(name, config.toBuilder().deployment(deployment).build(), roles, toleratedWarnings);
    }

    /** Ids {@link CodecIds#MULTIPAXOS_FIRST} and up, in a fixed order: append new types at the end, never reorder. */
    @Override
    public void registerMessages(MessageRegistry registry) {
        int id = CodecIds.MULTIPAXOS_FIRST;
        registry.register(Ballot.class, id++);
        registry.register(Value.Noop.class, id++);
        registry.register(Value.Command.class, id++);
        registry.register(Value.LogRead.class, id++);
        registry.register(MultiPaxosMessage.Vote.class, id++);
        registry.register(SnapshotMeta.class, id++);
        registry.register(MultiPaxosMessage.Prepare.class, id++);
        registry.register(MultiPaxosMessage.Promise.class, id++);
        registry.register(MultiPaxosMessage.Nack.class, id++);
        registry.register(MultiPaxosMessage.Accept.class, new PaxosWire.AcceptSerializer(), id++); // hand-written: the hot path
        registry.register(MultiPaxosMessage.Accepted.class, new PaxosWire.AcceptedSerializer(), id++); // hand-written: the hot path
        registry.register(MultiPaxosMessage.Chosen.class, new PaxosWire.ChosenSerializer(), id++); // hand-written: the hot path
        registry.register(MultiPaxosMessage.Heartbeat.class, id++);
        registry.register(MultiPaxosMessage.HeartbeatAck.class, id++);
        registry.register(MultiPaxosMessage.Propose.class, new PaxosWire.ProposeSerializer(), id++); // hand-written: the hot path
        registry.register(MultiPaxosMessage.ProposeRead.class, id++);
        registry.register(MultiPaxosMessage.ProposeRejected.class, id++);
        registry.register(MultiPaxosMessage.MaxVotedSlotQuery.class, id++);
        registry.register(MultiPaxosMessage.MaxVotedSlot.class, id++);
        registry.register(MultiPaxosMessage.ReadAt.class, id++);
        registry.register(MultiPaxosMessage.ReplicaProgress.class, id++);
        registry.register(MultiPaxosMessage.Recover.class, id++);
        registry.register(MultiPaxosMessage.CatchUpRequest.class, id++);
        registry.register(MultiPaxosMessage.CatchUpEntries.class, id++);
        registry.register(MultiPaxosMessage.SnapshotOffer.class, id++);
        registry.register(MultiPaxosMessage.SnapshotChunkRequest.class, id++);
        registry.register(MultiPaxosMessage.SnapshotChunk.class, id++);
        if (id > CodecIds.COPILOT_FIRST) throw new IllegalStateException("MultiPaxos registrations overflow their id range");
    }

    /**
     * One value chosen per slot, replicas agree, ballots increase (see {@link MultiPaxosInvariants}).
     * Asking for them makes engines created afterwards keep the bounded vote and execution histories
     * the invariants read; engines of a production node keep none.
     */
    @Override
    public List<SimInvariant> invariants() {
        observed = true;
        List<SimInvariant> all = new ArrayList<>(MultiPaxosInvariants.create());
        if (toleratedWarnings != null) all.add(MultiPaxosInvariants.noSlownessWarnings(toleratedWarnings));
        return all;
    }

    @Override
    public String toString() {
        return name();
    }
}
