package io.tandem.sim;

import io.tandem.engine.Protocol;
import java.util.List;

/**
 * A protocol that tells the simulator which safety invariants hold over all of its node engines.
 * Any {@link Protocol} can be simulated; this interface only adds protocol-specific checks on top of
 * the built-in ones (state machine safety, in-order execution, linearizability of client histories).
 */
public interface SimulatedProtocol extends Protocol {
    List<SimInvariant> invariants();
}
