package io.tandem.sim;

import io.tandem.engine.NodeId;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The admin commands a simulated operator issues now and then during the fault phase (issue 16:
 * leader transfers and membership changes reach the engines that take them). One instance per run;
 * the simulator sends each command without a session to a random member and reports the outcome.
 */
public interface SimAdminWorkload {
    /** The payload of the next admin command. */
    byte[] next(RandomGenerator random, List<NodeId> members);

    /** The last command was answered: {@code ok} if it took effect, false if it was rejected (or never answered). */
    void outcome(boolean ok);
}
