package io.tandem.protocols.copilot;

import io.tandem.codec.MessageRegistry;
import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.routing.RoutingPolicy;
import io.tandem.sim.SimInvariant;
import io.tandem.sim.SimulatedProtocol;
import java.util.ArrayList;
import java.util.List;

/**
 * A protocol under test plus one invariant that only looks (it records what the engines did and never
 * fails a run), for tests that read counters out of the engines while the simulator runs them.
 */
record Probed(Protocol inner, SimInvariant probe) implements SimulatedProtocol {
    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        return inner.createEngine(self, members);
    }

    @Override
    public RoutingPolicy routing() {
        return inner.routing();
    }

    @Override
    public void registerMessages(MessageRegistry registry) {
        inner.registerMessages(registry);
    }

    /** The mix's drawn configuration reaches the inner protocol; the probe stays. */
    @Override
    public SimulatedProtocol withRandomConfig(java.util.random.RandomGenerator random, int nodes) {
        return inner instanceof SimulatedProtocol sp ? new Probed(sp.withRandomConfig(random, nodes), probe) : this;
    }

    @Override
    public List<SimInvariant> invariants() {
        List<SimInvariant> all = new ArrayList<>(inner instanceof SimulatedProtocol sp ? sp.invariants() : List.of());
        all.add(probe);
        return all;
    }
}
