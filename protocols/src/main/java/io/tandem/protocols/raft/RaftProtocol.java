package io.tandem.protocols.raft;

import io.tandem.codec.CodecIds;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.Engine;
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

    @Override
    public String toString() {
        return name();
    }
}
