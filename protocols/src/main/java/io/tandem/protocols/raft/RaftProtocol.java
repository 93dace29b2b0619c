package io.tandem.protocols.raft;

import io.tandem.codec.CodecIds;
import io.tandem.codec.MessageRegistry;
import io.tandem.protocols.failslow.SlownessDetector;
import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
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
public final class RaftProtocol implements SimulatedProtocol {
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

    private RaftProtocol(RaftConfig config, Set<String> toleratedWarnings) {
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
        return new RaftProtocol(config, Set.of(toleratedKinds));
    }

    /** Every kind of slowness warning the engine raises. */
    public static final Set<String> WARNING_KINDS = SlownessDetector.KINDS;

    /** The registry name of a broken variant, e.g. {@code raft-broken-commit-without-quorum}. */
    public static String brokenName(RaftConfig.BrokenVariant variant) {
        return NAME + "-broken-" + variant.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    public RaftConfig config() {
        return config;
    }

    @Override
    public String name() {
        return config.brokenVariant() == RaftConfig.BrokenVariant.NONE ? NAME : brokenName(config.brokenVariant());
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        return new RaftEngine(self, members, config);
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
        registry.register(RaftMessage.AppendEntries.class, id++);
        registry.register(RaftMessage.AppendEntriesResponse.class, id++);
        registry.register(RaftMessage.Heartbeat.class, id++);
        registry.register(RaftMessage.HeartbeatResponse.class, id++);
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

    @Override
    public String toString() {
        return NAME + (config.brokenVariant() == RaftConfig.BrokenVariant.NONE ? "" : "[broken: " + config.brokenVariant() + "]");
    }
}
