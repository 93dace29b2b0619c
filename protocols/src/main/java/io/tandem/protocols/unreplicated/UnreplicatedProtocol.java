package io.tandem.protocols.unreplicated;

import io.tandem.codec.MessageRegistry;
import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.sim.SimCluster;
import io.tandem.sim.SimInvariant;
import io.tandem.sim.SimulatedProtocol;
import java.util.List;
import java.util.Optional;

/**
 * The unreplicated protocol ({@code unreplicated}): one member, a durable log, no replication
 * ({@link UnreplicatedEngine}). The cluster benchmark runs it as the practical upper bound of the replicated
 * engines on the same runtime, storage and transport; it is not fault tolerant and refuses groups of more
 * than one member.
 */
public class UnreplicatedProtocol implements SimulatedProtocol {
    public static final String NAME = "unreplicated";

    private final UnreplicatedConfig config;

    public UnreplicatedProtocol() {
        this(UnreplicatedConfig.DEFAULTS);
    }

    public UnreplicatedProtocol(UnreplicatedConfig config) {
        this.config = config;
    }

    public UnreplicatedConfig config() {
        return config;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** @throws IllegalArgumentException unless {@code members} is exactly {@code [self]} */
    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        return newEngine(self, members);
    }

    /** The engine of the one node; a variant in tests returns its own. */
    UnreplicatedEngine newEngine(NodeId self, List<NodeId> members) {
        return new UnreplicatedEngine(self, members, config);
    }

    @Override
    public void registerMessages(MessageRegistry registry) {
        // Nothing crosses the wire.
    }

    @Override
    public List<SimInvariant> invariants() {
        return List.of(SimInvariant.of("unreplicated-commit-only-durable", UnreplicatedProtocol::commitOnlyDurable));
    }

    /** The engine's whole claim: nothing is committed (executed, acknowledged) before the log has it durably. */
    private static Optional<String> commitOnlyDurable(SimCluster cluster) {
        for (NodeId n : cluster.members()) {
            Optional<UnreplicatedEngine> e = cluster.engine(n, UnreplicatedEngine.class);
            if (e.isEmpty()) continue;
            long durable = e.get().log().durableIndex();
            if (e.get().commitIndex() > durable) {
                return Optional.of(n + " committed up to " + e.get().commitIndex() + " but its log is durable only up to " + durable);
            }
        }
        return Optional.empty();
    }
}
