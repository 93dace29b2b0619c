package io.tandem.protocols;

import io.tandem.engine.Protocol;
import io.tandem.protocols.multipaxos.MultiPaxosConfig;
import io.tandem.protocols.multipaxos.MultiPaxosProtocol;
import io.tandem.protocols.raft.RaftConfig;
import io.tandem.protocols.raft.RaftProtocol;
import io.tandem.protocols.toy.ToyProtocol;
import io.tandem.protocols.unreplicated.UnreplicatedProtocol;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The protocols Tandem ships, by name: what {@code --protocol NAME} on the command line and
 * configuration files refer to. Each protocol package adds itself here.
 */
public final class Protocols {
    private static final Map<String, Supplier<Protocol>> BY_NAME = new TreeMap<>();

    static {
        BY_NAME.put(ToyProtocol.NAME, ToyProtocol::correct);
        BY_NAME.put(ToyProtocol.BUGGY_NAME, ToyProtocol::buggy);
        BY_NAME.put(RaftProtocol.NAME, RaftProtocol::new);
        // Deliberately broken Raft engines, so the simulator and the slowness detector can be shown to catch
        // them. The fail-slow ones are not safety bugs: they are caught by the slowness detector, checked
        // here as a simulator invariant, with a window small enough to overflow in a short run.
        for (RaftConfig.BrokenVariant v : RaftConfig.BrokenVariant.values()) {
            switch (v) {
                case NONE -> { }
                case COMMIT_WITHOUT_QUORUM, VOTE_BEFORE_PERSIST ->
                        BY_NAME.put(RaftProtocol.brokenName(v), () -> new RaftProtocol(RaftConfig.builder().brokenVariant(v).build()));
                case UNBOUNDED_FOLLOWER_QUEUE, WAIT_FOR_ALL_FOLLOWERS -> BY_NAME.put(RaftProtocol.brokenName(v),
                        () -> new RaftProtocol(RaftConfig.builder().brokenVariant(v).maxInflight(4, 1 << 20).build()).checkingSlowness("same-quorum", "resend-storm"));
            }
        }
        BY_NAME.put(MultiPaxosProtocol.NAME, MultiPaxosProtocol::new);
        // Deliberately broken MultiPaxos engines, for the simulator to catch: multipaxos-unsafe runs Phase 2 without
        // Phase 1 after a leader change; multipaxos-unsafe-ack-before-durable acknowledges votes before they are durable;
        // multipaxos-slow-wait-for-all-acceptors is safe but waits for every acceptor, which the slowness detector reports.
        for (MultiPaxosConfig.BrokenVariant v : MultiPaxosConfig.BrokenVariant.values()) {
            switch (v) {
                case NONE -> { }
                case SKIP_PHASE1, ACK_BEFORE_DURABLE ->
                        BY_NAME.put(MultiPaxosProtocol.nameOf(v), () -> new MultiPaxosProtocol(MultiPaxosConfig.builder().brokenVariant(v).build()));
                case WAIT_FOR_ALL_ACCEPTORS -> BY_NAME.put(MultiPaxosProtocol.nameOf(v), () -> new MultiPaxosProtocol(
                        MultiPaxosConfig.builder().brokenVariant(v).detector(java.time.Duration.ofMillis(500), 64).build()).checkingSlowness("same-quorum", "resend-storm"));
            }
        }
        // One member and a durable log, no replication: the cluster benchmark's upper bound, not fault tolerant.
        BY_NAME.put(UnreplicatedProtocol.NAME, UnreplicatedProtocol::new);
    }

    private Protocols() {}

    /** Every known protocol name, sorted. */
    public static List<String> names() {
        return List.copyOf(BY_NAME.keySet());
    }

    /** A fresh instance of the protocol called {@code name}. */
    public static Protocol byName(String name) {
        Supplier<Protocol> factory = BY_NAME.get(name);
        if (factory == null) throw new IllegalArgumentException("unknown protocol '" + name + "'; known: " + String.join(", ", names()));
        return factory.get();
    }

    /** Fail-slow tolerant Raft (DepFast) with default settings ({@link RaftConfig#DEFAULTS}). */
    public static Protocol raft() {
        return new RaftProtocol();
    }

    public static Protocol raft(RaftConfig config) {
        return new RaftProtocol(config);
    }

    /** MultiPaxos from separable roles, classic deployment, with default settings ({@link MultiPaxosConfig#DEFAULTS}). */
    public static Protocol multiPaxos() {
        return new MultiPaxosProtocol();
    }

    public static Protocol multiPaxos(MultiPaxosConfig config) {
        return new MultiPaxosProtocol(config);
    }

    /** A single server with a durable log and no replication (the benchmark's upper bound); refuses more than one member. */
    public static Protocol unreplicated() {
        return new UnreplicatedProtocol();
    }

    /** The toy primary-backup engine, the simulator's reference subject. */
    public static Protocol toyPrimaryBackup() {
        return ToyProtocol.correct();
    }
}
