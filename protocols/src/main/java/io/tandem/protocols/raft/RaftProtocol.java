package io.tandem.protocols.raft;

import io.tandem.codec.CodecIds;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.Engine;
import io.tandem.engine.HostSettings;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.protocols.failslow.SlownessDetector;
import io.tandem.sim.SimInvariant;
import io.tandem.sim.SimulatedProtocol;
import io.tandem.storage.LogEntry;
import io.tandem.storage.SnapshotMeta;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Fail-slow tolerant Raft (DepFast) as a Tandem {@link Protocol}; one {@link RaftEngine} per node.
 * Under the simulator it adds Raft's safety invariants ({@link #invariants()}).
 */
public class RaftProtocol implements SimulatedProtocol {
    public static final String NAME = "raft";

    private final RaftConfig config;
    /** Slowness warning kinds a run may raise; null: the detector is not checked. */
    private final Set<String> toleratedWarnings;

    public RaftProtocol() {
        this(RaftConfig.DEFAULTS);
    }

    public RaftProtocol(RaftConfig config) {
        this(config, null);
    }

    /** For variants in tests; {@code toleratedWarnings} as in {@link #checkingSlowness}, or null. */
    RaftProtocol(RaftConfig config, Set<String> toleratedWarnings) {
        this.config = Objects.requireNonNull(config, "config");
        this.toleratedWarnings = toleratedWarnings;
    }

    /**
     * The same protocol whose simulator invariants also require a quiet slowness detector: a warning
     * of any kind not listed fails the run. With nothing listed it checks a healthy run; runs with
     * slow nodes legitimately raise {@code same-quorum} (a slow minority) and, when a link jams for
     * seconds, {@code resend-storm}.
     */
    public RaftProtocol checkingSlowness(String... toleratedKinds) {
        return copy(config, Set.of(toleratedKinds));
    }

    /** The same protocol with other settings (e.g. a server's election timeouts); the slowness check is kept. */
    public RaftProtocol withConfig(RaftConfig newConfig) {
        return copy(Objects.requireNonNull(newConfig, "newConfig"), toleratedWarnings);
    }

    /** A protocol of this kind with {@code newConfig}; a variant in tests returns its own kind. */
    RaftProtocol copy(RaftConfig newConfig, Set<String> tolerated) {
        return new RaftProtocol(newConfig, tolerated);
    }

    /** The engine of one node; a variant in tests returns its own. */
    RaftEngine newEngine(NodeId self, List<NodeId> members, RaftConfig engineConfig) {
        return new RaftEngine(self, members, engineConfig);
    }

    /** Every kind of slowness warning the engine raises. */
    public static final Set<String> WARNING_KINDS = SlownessDetector.KINDS;

    public RaftConfig config() {
        return config;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        return newEngine(self, members, config);
    }

    /** The election timeout, the snapshot threshold and the voters of a new group (Raft §9.2's learners join later). */
    @Override
    public Set<HostSettings.Kind> hostSettings() {
        return java.util.EnumSet.allOf(HostSettings.Kind.class);
    }

    /**
     * This Raft (its kind and slowness check kept) with a host's settings; restart-after-shutdown does
     * not apply (a Raft member never shuts itself down).
     */
    @Override
    public RaftProtocol withHostSettings(HostSettings settings) {
        settings.requireOnly(name(), hostSettings());
        RaftConfig.Builder b = config.toBuilder();
        HostSettings.TimeoutRange election = settings.electionTimeout(config.electionTimeoutMin(), config.electionTimeoutMax());
        if (election != null) b.electionTimeout(election.min(), election.max());
        if (settings.snapshotThreshold() != null) b.snapshotThreshold(settings.snapshotThreshold());
        if (!settings.initialVoters().isEmpty()) b.initialVoters(settings.initialVoters());
        return withConfig(b.build());
    }

    /**
     * The largest {@code max-batch-bytes} an engine option may set: half the transport's largest frame
     * ({@link io.tandem.codec.FrameFormat#DEFAULT_MAX_FRAME_BYTES}), so that a full batch with its framing and
     * entry headers always fits in one frame (a larger batch would be refused by the receiver as oversized, and
     * the follower would never catch up).
     */
    public static final int MAX_BATCH_BYTES_OPTION = io.tandem.codec.FrameFormat.DEFAULT_MAX_FRAME_BYTES / 2;

    /**
     * The engine options {@link #withEngineOptions} takes (raft27), each a whole number and the config field it sets,
     * named as MultiPaxos names its own: the leader's per-follower pipeline and batch limits, which a server sets with
     * {@code engine-options} (e.g. {@code max-inflight-messages=4}).
     */
    public static final java.util.Map<String, String> ENGINE_OPTIONS = io.tandem.protocols.EngineOptions.known(
            "max-inflight-messages", "maxInflightMessages: AppendEntries per follower sent and not yet acknowledged (>= 1)",
            "max-inflight-bytes", "maxInflightBytes: entry bytes per follower sent and not yet acknowledged (>= 1)",
            "max-batch-entries", "maxBatchEntries: entries per AppendEntries (>= 1)",
            "max-batch-bytes", "maxBatchBytes: entry bytes per AppendEntries, 1 to " + MAX_BATCH_BYTES_OPTION + " (a single larger entry is sent alone)");

    /**
     * This Raft (its kind and slowness check kept) with the {@link #ENGINE_OPTIONS} given set; each value is validated
     * as {@link RaftConfig} validates its field, and {@code max-batch-bytes} also against {@link #MAX_BATCH_BYTES_OPTION}.
     * Only how much the leader sends per message and keeps in flight changes, never what a follower accepts or when an
     * entry commits, so any valid value is safe (the simulator draws these limits down to 1, {@link #withRandomConfig}).
     */
    @Override
    public RaftProtocol withEngineOptions(java.util.Map<String, String> options) {
        if (options.isEmpty()) return this;
        return withConfig(io.tandem.protocols.EngineOptions.apply(NAME, ENGINE_OPTIONS, options, config, (c, key, v) -> switch (key) {
            case "max-inflight-messages" -> c.toBuilder().maxInflight(v, c.maxInflightBytes()).build();
            case "max-inflight-bytes" -> c.toBuilder().maxInflight(c.maxInflightMessages(), v).build();
            case "max-batch-entries" -> c.toBuilder().maxBatch(v, c.maxBatchBytes()).build();
            case "max-batch-bytes" -> {
                if (v > MAX_BATCH_BYTES_OPTION) throw new IllegalArgumentException("maxBatchBytes must be <= " + MAX_BATCH_BYTES_OPTION + " (half a transport frame), was " + v);
                yield c.toBuilder().maxBatch(c.maxBatchEntries(), v).build();
            }
            default -> throw new IllegalStateException("ENGINE_OPTIONS lists " + key + " without a case");
        }));
    }

    /** Ids {@link CodecIds#RAFT_FIRST} and up, in a fixed order: append new types at the end, never reorder. */
    @Override
    public void registerMessages(MessageRegistry registry) {
        int id = CodecIds.RAFT_FIRST;
        registry.register(LogEntry.class, id++);
        registry.register(SnapshotMeta.class, id++);
        registry.register(Configuration.class, id++);
        registry.register(RaftMessage.PreVoteRequest.class, id++);
        registry.register(RaftMessage.PreVoteResponse.class, id++);
        registry.register(RaftMessage.VoteRequest.class, id++);
        registry.register(RaftMessage.VoteResponse.class, id++);
        registry.register(RaftMessage.AppendEntries.class, new RaftWire.AppendEntriesSerializer(), id++); // hand-written: the hot path
        registry.register(RaftMessage.AppendEntriesResponse.class, new RaftWire.AppendEntriesResponseSerializer(), id++); // hand-written: the hot path
        registry.register(RaftMessage.Heartbeat.class, new RaftWire.HeartbeatSerializer(), id++); // hand-written: the hot path
        registry.register(RaftMessage.HeartbeatResponse.class, new RaftWire.HeartbeatResponseSerializer(), id++); // hand-written: the hot path
        registry.register(RaftMessage.InstallSnapshot.class, id++);
        registry.register(RaftMessage.InstallSnapshotResponse.class, id++);
        registry.register(RaftMessage.TimeoutNow.class, id++);
    }

    /** Election safety, log matching, leader completeness, agreement on committed entries, monotonic commit. */
    @Override
    public List<SimInvariant> invariants() {
        List<SimInvariant> all = new java.util.ArrayList<>(RaftInvariants.create());
        if (toleratedWarnings != null) all.add(RaftInvariants.noSlownessWarnings(toleratedWarnings));
        return all;
    }

    /**
     * A configuration drawn within {@link RaftConfig}'s valid ranges (issue 16): elections after 150 ms
     * to 2 s, pre-vote and check-quorum on or off, windows and batches down to one entry, snapshots
     * every few entries in chunks of a few bytes, little log kept behind them. The clock drift bound
     * stays a tenth of the election timeout, far above the simulator's drift (at most 0.1 %).
     */
    @Override
    public RaftProtocol withRandomConfig(java.util.random.RandomGenerator r, int nodes) {
        long min = pick(r, 150, 300, 1000);
        long max = min + min * pick(r, 20, 50, 100) / 100;
        long heartbeat = min / pick(r, 3, 5, 10);
        RaftConfig c = config.toBuilder()
                .electionTimeout(java.time.Duration.ofMillis(min), java.time.Duration.ofMillis(max))
                .heartbeatInterval(java.time.Duration.ofMillis(heartbeat))
                .resendInterval(java.time.Duration.ofMillis(heartbeat * pick(r, 1, 2)))
                .commitDeadline(java.time.Duration.ofMillis(min))
                .maxClockDrift(java.time.Duration.ofMillis(min / 10))
                .preVote(r.nextBoolean())
                .checkQuorum(r.nextBoolean())
                .maxInflight((int) pick(r, 1, 2, 8, 32), (int) pick(r, 4096, 64 << 10, 4 << 20))
                .maxBatch((int) pick(r, 1, 3, 16, 1024), (int) pick(r, 64, 1024, 256 << 10))
                .snapshotThreshold(pick(r, 4, 16, 64, 10_000))
                .snapshotChunkBytes((int) pick(r, 8, 64, 1024, 256 << 10))
                .logRetentionEntries(pick(r, 0, 2, 50, 1_000))
                .build();
        return withConfig(c);
    }

    private static long pick(java.util.random.RandomGenerator r, long... choices) {
        return choices[r.nextInt(choices.length)];
    }

    /**
     * An operator who transfers leadership to a random member a third of the time and otherwise walks
     * one member through removal, re-adding as a learner and promotion (Raft §6, thesis §4.2.1), one
     * step at a time: a step is repeated until it is answered as done.
     */
    @Override
    public java.util.Optional<io.tandem.sim.SimAdminWorkload> adminWorkload() {
        return java.util.Optional.of(new io.tandem.sim.SimAdminWorkload() {
            private NodeId victim;
            private int step; // 0: remove next, 1: add as learner next, 2: promote next
            private boolean lastWasStep;

            @Override
            public byte[] next(java.util.random.RandomGenerator random, List<NodeId> members) {
                if (random.nextInt(3) == 0) {
                    lastWasStep = false;
                    return RaftAdmin.transferLeadership(members.get(random.nextInt(members.size())));
                }
                lastWasStep = true;
                if (victim == null) victim = members.get(random.nextInt(members.size()));
                return switch (step) {
                    case 0 -> RaftAdmin.remove(victim);
                    case 1 -> RaftAdmin.addLearner(victim);
                    default -> RaftAdmin.promote(victim);
                };
            }

            @Override
            public void outcome(boolean ok) {
                if (!ok || !lastWasStep) return;
                step = (step + 1) % 3;
                if (step == 0) victim = null;
            }
        });
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
        RaftConfig c = config;
        return "election=" + c.electionTimeoutMin().toMillis() + "-" + c.electionTimeoutMax().toMillis() + "ms heartbeat=" + c.heartbeatInterval().toMillis()
                + "ms resend=" + c.resendInterval().toMillis() + "ms drift=" + c.maxClockDrift().toMillis() + "ms preVote=" + c.preVote() + " checkQuorum=" + c.checkQuorum()
                + " inflight=" + c.maxInflightMessages() + "/" + c.maxInflightBytes() + "B batch=" + c.maxBatchEntries() + "/" + c.maxBatchBytes()
                + "B snapshotEvery=" + c.snapshotThreshold() + " chunk=" + c.snapshotChunkBytes() + "B retain=" + c.logRetentionEntries();
    }

    @Override
    public String toString() {
        return name();
    }
}
