package io.tandem.protocols.raft;

import io.tandem.codec.CodecIds;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.storage.LogEntry;
import io.tandem.storage.SnapshotMeta;
import java.util.List;
import java.util.Objects;

/** Fail-slow tolerant Raft (DepFast) as a Tandem {@link Protocol}; one {@link RaftEngine} per node. */
public final class RaftProtocol implements Protocol {
    public static final String NAME = "raft";

    private final RaftConfig config;

    public RaftProtocol() {
        this(RaftConfig.DEFAULTS);
    }

    public RaftProtocol(RaftConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    public RaftConfig config() {
        return config;
    }

    @Override
    public String name() {
        return NAME;
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

    @Override
    public String toString() {
        return NAME + (config.brokenVariant() == RaftConfig.BrokenVariant.NONE ? "" : "[broken: " + config.brokenVariant() + "]");
    }
}
