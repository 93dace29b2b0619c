package io.tandem.protocols.multipaxos;

import io.tandem.roles.Deployment;
import io.tandem.roles.RoleCatalog;
import java.util.Optional;
import io.tandem.codec.CodecIds;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.Engine;
import io.tandem.engine.HostSettings;
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

    /**
     * MultiPaxos' roles, for reading deployment files: leader, proxy, acceptor (or grid rows
     * acceptor-row1, acceptor-row2, ...), replica, frontend, batcher.
     */
    public static final RoleCatalog ROLES = Topology.ROLES;

    /** A leader, an acceptor, a replica and a frontend on every member: the classic deployment, and the default. */
    public static final Deployment CLASSIC = Deployment.parse("""
            leader   = *
            acceptor = *
            replica  = *
            frontend = *
            """, "classic deployment", ROLES);

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

    /**
     * Clients follow the leader in the classic deployment (a follower's frontend redirects to the
     * leader). A compartmentalized deployment (proxies or batchers placed;
     * {@link Topology#spreadsClients()}) takes requests at any of its frontends or batchers, which
     * find the leader themselves: clients spread their requests over the members, and a member that
     * takes none redirects to those that do, which the client then spreads over.
     */
    @Override
    public io.tandem.routing.RoutingPolicy routing() {
        String text = config.deployment().toText();
        boolean spread = text.lines().map(String::strip).anyMatch(l -> l.startsWith("batcher") || l.startsWith("proxy"));
        return spread ? io.tandem.routing.RoutingPolicy.anyMember() : io.tandem.routing.RoutingPolicy.leader();
    }

    @Override
    public Optional<RoleCatalog> roles() {
        return Optional.of(ROLES);
    }

    /** The election timeout (Phase 1 after that long without the leader's heartbeat) and the replicas' snapshot threshold. */
    @Override
    public Set<HostSettings.Kind> hostSettings() {
        return java.util.EnumSet.of(HostSettings.Kind.ELECTION_TIMEOUT, HostSettings.Kind.SNAPSHOT_THRESHOLD);
    }

    /**
     * This protocol (name, roles, deployment and slowness check kept) with a host's settings. It takes
     * no initial voters: every acceptor of the deployment votes from the start.
     */
    @Override
    public MultiPaxosProtocol withHostSettings(HostSettings settings) {
        settings.requireOnly(name, hostSettings());
        MultiPaxosConfig.Builder b = config.toBuilder();
        HostSettings.TimeoutRange election = settings.electionTimeout(config.electionTimeoutMin(), config.electionTimeoutMax());
        if (election != null) b.electionTimeout(election.min(), election.max());
        if (settings.snapshotThreshold() != null) b.snapshotThreshold(settings.snapshotThreshold());
        return new MultiPaxosProtocol(name, b.build(), roles, toleratedWarnings);
    }

    /** The engine options {@link #withEngineOptions} takes, each a whole number and the config field it sets. */
    public static final java.util.Map<String, String> ENGINE_OPTIONS = io.tandem.protocols.EngineOptions.known(
            "max-batch-slots", "maxBatchSlots: slots per Phase 2a / Chosen / catch-up message (1: one command per Phase 2, unbatched)",
            "max-batch-bytes", "maxBatchBytes: value bytes per such message",
            "window-slots", "windowSlots: slots proposed and not yet chosen",
            "max-inflight-messages", "maxInflightMessages: Phase 2a messages per acceptor sent and not yet answered",
            "max-queued-commands", "maxQueuedCommands: commands waiting at the leader before Overloaded",
            "batch-max-commands", "batchMaxCommands: commands a batcher collects before it sends its batch",
            "proxy-stripe-slots", "proxyStripeSlots: consecutive slots the leader hands one proxy leader (1: round-robin per run)");

    /**
     * This protocol (name, roles, deployment and slowness check kept) with the {@link #ENGINE_OPTIONS}
     * given set; each value is validated as {@link MultiPaxosConfig} validates its field (window-slots
     * also raises maxReplicaLagSlots to it when lower, since that bound may not be below the window).
     */
    @Override
    public MultiPaxosProtocol withEngineOptions(java.util.Map<String, String> options) {
        if (options.isEmpty()) return this;
        MultiPaxosConfig c = io.tandem.protocols.EngineOptions.apply(name, ENGINE_OPTIONS, options, config, (cur, key, v) -> {
            MultiPaxosConfig.Builder b = cur.toBuilder();
            switch (key) {
                case "max-batch-slots" -> b.maxBatch(v, cur.maxBatchBytes());
                case "max-batch-bytes" -> b.maxBatch(cur.maxBatchSlots(), v);
                case "window-slots" -> {
                    b.windowSlots(v);
                    if (cur.maxReplicaLagSlots() < v) b.maxReplicaLagSlots(v);
                }
                case "max-inflight-messages" -> b.maxInflight(v, cur.maxInflightBytes());
                case "max-queued-commands" -> b.maxQueuedCommands(v);
                case "batch-max-commands" -> b.batching(v, cur.batchDelay());
                case "proxy-stripe-slots" -> b.proxyStripeSlots(v);
                default -> throw new IllegalStateException("ENGINE_OPTIONS lists " + key + " without a case");
            }
            return b.build();
        });
        return new MultiPaxosProtocol(name, c, roles, toleratedWarnings);
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
        registry.register(MultiPaxosMessage.ProxyAccept.class, new PaxosWire.ProxyAcceptSerializer(), id++); // hand-written: the leader's send per command with proxies
        registry.register(MultiPaxosMessage.Decided.class, id++);
        registry.register(MultiPaxosMessage.ProposeBatch.class, id++);
        registry.register(MultiPaxosMessage.Reply.class, id++);
        registry.register(MultiPaxosMessage.ReplyBatch.class, id++);
        registry.register(MultiPaxosMessage.ClientReplies.class, id++);
        registry.register(MultiPaxosMessage.ChosenThrough.class, new PaxosWire.ChosenThroughSerializer(), id++); // hand-written: an idle leader's chosen watermark
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

    /**
     * A configuration drawn within {@link MultiPaxosConfig}'s valid ranges (issue 16): Phase 1 after
     * 150 ms to 2 s, windows, in-flight bounds and batches down to one slot, snapshots every few slots
     * in chunks of a few bytes, little retained behind them, either read path, and with three or more
     * acceptors sometimes flexible (counting) quorums. The deployment stays.
     */
    @Override
    public MultiPaxosProtocol withRandomConfig(java.util.random.RandomGenerator r, int nodes) {
        long min = pick(r, 150, 300, 1000);
        long max = min + min * pick(r, 20, 50, 100) / 100;
        long heartbeat = min / pick(r, 3, 5, 10);
        int window = (int) pick(r, 2, 16, 1024);
        MultiPaxosConfig.Builder b = config.toBuilder()
                .electionTimeout(java.time.Duration.ofMillis(min), java.time.Duration.ofMillis(max))
                .heartbeatInterval(java.time.Duration.ofMillis(heartbeat))
                .resendInterval(java.time.Duration.ofMillis(heartbeat * pick(r, 1, 2)))
                .windowSlots(window)
                .maxInflight((int) pick(r, 1, 4, 32), (int) pick(r, 4096, 4 << 20))
                .maxBatch((int) pick(r, 1, 4, 256), (int) pick(r, 64, 4096, 256 << 10))
                .snapshotThreshold(pick(r, 8, 32, 10_000))
                .logRetentionSlots(pick(r, 0, 8, 1_000))
                .snapshotChunkBytes((int) pick(r, 16, 512, 256 << 10))
                .catchUpTimeout(java.time.Duration.ofMillis(pick(r, 50, 300)))
                .linearizableReads(r.nextBoolean() ? MultiPaxosConfig.ReadPath.ACCEPTOR_QUORUM : MultiPaxosConfig.ReadPath.LOG)
                // Down to the window itself (the smallest valid limit; reached when the window is 1024): with the
                // limit at the window, a burst once left every replica past it and catch-up alone never closed
                // the gap (issue 16 finding, seeds 133, 355, 451, 987 and 1097 of the mix at 207ec3b), so the
                // generator kept four windows. The engine now measures lag against the most advanced replica
                // and keeps pulling while a peer's answers are useful (Leader.announce, Replica.onCatchUpEntries).
                .maxReplicaLagSlots((int) Math.max(window, pick(r, 64, 4096)))
                .retainedChosenSlots((int) pick(r, 16, 4096));
        int acceptors = config.deployment().equals(CLASSIC) ? nodes : 0;
        if (acceptors >= 3 && r.nextInt(4) == 0) {
            int read = 1 + r.nextInt(acceptors); // any read quorum size with write = n - read + 1 intersects
            b.acceptorQuorums(new QuorumLayout.Threshold(read, acceptors - read + 1));
        }
        // Drawn last, so every earlier draw (and so each seed's other settings) is what it was before this knob.
        b.proxyStripeSlots((int) pick(r, 1, 3, 16, 1024));
        return new MultiPaxosProtocol(name, b.build(), roles, toleratedWarnings);
    }

    private static long pick(java.util.random.RandomGenerator r, long... choices) {
        return choices[r.nextInt(choices.length)];
    }

    /** Any member serves {@code ReadPolicy.stale(minIndex)} once it applied minIndex (the seed mix asks some reads so). */
    @Override
    public boolean staleReads() {
        return true;
    }

    /** Sessions keep exactly-once with several commands in flight (the seed mix adds a pipelined client). */
    @Override
    public boolean pipelinedSessions() {
        return true;
    }

    @Override
    public String describeConfig() {
        MultiPaxosConfig c = config;
        return "election=" + c.electionTimeoutMin().toMillis() + "-" + c.electionTimeoutMax().toMillis() + "ms heartbeat=" + c.heartbeatInterval().toMillis()
                + "ms resend=" + c.resendInterval().toMillis() + "ms window=" + c.windowSlots() + " inflight=" + c.maxInflightMessages() + "/" + c.maxInflightBytes()
                + "B batch=" + c.maxBatchSlots() + "/" + c.maxBatchBytes() + "B snapshotEvery=" + c.snapshotThreshold() + " retain=" + c.logRetentionSlots()
                + " chunk=" + c.snapshotChunkBytes() + "B catchUp=" + c.catchUpTimeout().toMillis() + "ms reads=" + c.linearizableReads()
                + " quorums=" + c.acceptorQuorums() + " lagLimit=" + c.maxReplicaLagSlots() + " retainedChosen=" + c.retainedChosenSlots() + " stripe=" + c.proxyStripeSlots();
    }

    @Override
    public String toString() {
        return name();
    }
}
