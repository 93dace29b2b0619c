package io.tandem.protocols.copilot;

import io.tandem.codec.CodecIds;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.Engine;
import io.tandem.engine.HostSettings;
import io.tandem.engine.NodeId;
import io.tandem.routing.RoutingPolicy;
import io.tandem.sim.SimInvariant;
import io.tandem.sim.SimulatedProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Copilot replication (1-slowdown-tolerant, copilot.md) as a Tandem {@link io.tandem.engine.Protocol}:
 * members 0 and 1 are the pilot and the copilot, clients send every command to both and take the
 * first reply ({@link RoutingPolicy#firstReply firstReply(2)}). Under the simulator it adds the
 * Copilot invariants ({@link #invariants()}).
 */
public final class CopilotProtocol implements SimulatedProtocol {
    public static final String NAME = "copilot";

    private final String name;
    private final CopilotConfig config;
    private final CopilotRules rules;
    private final Set<String> toleratedWarnings;
    private volatile boolean observed;

    public CopilotProtocol() {
        this(CopilotConfig.DEFAULTS);
    }

    public CopilotProtocol(CopilotConfig config) {
        this(NAME, config, CopilotRules.STANDARD, null);
    }

    /** A protocol whose engines decide with {@code rules} (tests plant broken rules so, under their own name). */
    CopilotProtocol(String name, CopilotConfig config, CopilotRules rules, Set<String> toleratedWarnings) {
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.rules = Objects.requireNonNull(rules, "rules");
        this.toleratedWarnings = toleratedWarnings;
    }

    /** The same protocol whose simulator invariants also require quiet slowness detectors, except for {@code toleratedKinds}. */
    public CopilotProtocol checkingSlowness(String... toleratedKinds) {
        return new CopilotProtocol(name, config, rules, Set.of(toleratedKinds));
    }

    /**
     * The snapshot threshold (slots of both logs). Copilot has no election timeout of a range: its
     * pilots are elected after a fixed view-change timeout ({@link CopilotConfig#viewChangeTimeout}),
     * set in the config.
     */
    @Override
    public Set<HostSettings.Kind> hostSettings() {
        return java.util.EnumSet.of(HostSettings.Kind.SNAPSHOT_THRESHOLD);
    }

    /** This protocol (name, rules and slowness check kept) with a host's settings. */
    @Override
    public CopilotProtocol withHostSettings(HostSettings settings) {
        settings.requireOnly(name, hostSettings());
        if (settings.snapshotThreshold() == null) return this;
        CopilotConfig c = config.withSnapshots(settings.snapshotThreshold(), config.logRetentionSlots(), config.snapshotChunkBytes());
        return new CopilotProtocol(name, c, rules, toleratedWarnings);
    }

    public CopilotConfig config() {
        return config;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        return new CopilotEngine(self, members, config, rules, observed);
    }

    /** Both pilots order every command; the first answer wins (§3.2). */
    @Override
    public RoutingPolicy routing() {
        return RoutingPolicy.firstReply(2);
    }

    /** Ids {@link CodecIds#COPILOT_FIRST} and up, in a fixed order: append new types at the end, never reorder. */
    @Override
    public void registerMessages(MessageRegistry registry) {
        int id = CodecIds.COPILOT_FIRST;
        registry.register(Ballot.class, id++);
        registry.register(Command.class, id++);
        registry.register(Status.class, id++);
        registry.register(CopilotMessage.FastAccept.class, id++);
        registry.register(CopilotMessage.FastAcceptReply.class, id++);
        registry.register(CopilotMessage.Accept.class, id++);
        registry.register(CopilotMessage.AcceptReply.class, id++);
        registry.register(CopilotMessage.Commit.class, id++);
        registry.register(CopilotMessage.Prepare.class, id++);
        registry.register(CopilotMessage.PrepareReply.class, id++);
        registry.register(CopilotMessage.CommitQuery.class, id++);
        registry.register(CopilotMessage.ViewChange.class, id++);
        registry.register(CopilotMessage.ViewChangeReply.class, id++);
        registry.register(CopilotMessage.StartView.class, id++);
        registry.register(io.tandem.storage.SnapshotMeta.class, id++);
        registry.register(CopilotMessage.SnapshotOffer.class, id++);
        registry.register(CopilotMessage.SnapshotChunkRequest.class, id++);
        registry.register(CopilotMessage.SnapshotChunk.class, id++);
        registry.register(CopilotMessage.Ball.class, id++);
        if (id > CodecIds.DERECHO_FIRST) throw new IllegalStateException("Copilot registrations overflow their id range");
    }

    @Override
    public List<SimInvariant> invariants() {
        observed = true;
        List<SimInvariant> all = new ArrayList<>(CopilotInvariants.create());
        if (toleratedWarnings != null) all.add(CopilotInvariants.noSlownessWarnings(toleratedWarnings));
        return all;
    }

    /**
     * A configuration drawn for one seed of the mix (issue 16): snapshots every few slots in chunks of a
     * few bytes with little or nothing retained behind them, so that compaction, state transfer and
     * restarts from a snapshot happen in most runs; the other settings stay as configured.
     */
    @Override
    public CopilotProtocol withRandomConfig(java.util.random.RandomGenerator r, int nodes) {
        CopilotConfig c = config.withSnapshots(pick(r, 4, 16, 64, 10_000), pick(r, 0, 2, 50, 1_000), (int) pick(r, 8, 64, 1024, 256 << 10));
        return new CopilotProtocol(name, c, rules, toleratedWarnings);
    }

    private static long pick(java.util.random.RandomGenerator r, long... choices) {
        return choices[r.nextInt(choices.length)];
    }

    @Override
    public String describeConfig() {
        return "snapshotEvery=" + config.snapshotThreshold() + " retain=" + config.logRetentionSlots() + " chunk=" + config.snapshotChunkBytes() + "B";
    }

    @Override
    public String toString() {
        return name;
    }

    /** Sessions keep exactly-once with several commands in flight (the seed mix adds a pipelined client). */
    @Override
    public boolean pipelinedSessions() {
        return true;
    }
}
