package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The restart leader's round after a total failure (derecho.md §5.9), as bookkeeping the engine
 * drives: collect the restarting members' reports, wait one more retry period once they form a
 * quorum, prepare the decision {@link RestartPlanner} makes from them, commit it once every member
 * of the restart view logged it, and hear everyone afresh if that takes more than
 * {@link #MAX_PREPARE_RETRIES} retries. It sends nothing itself: {@link #step} says what to send.
 *
 * <p>Why committing only on every member's ack is safe: a member installs the restart view only on
 * the commit, and each member logged the view before it acked, so after a crash in the middle every
 * member that might have installed it reports it as its newest view, and the next decision builds on
 * it (RestartPlanner's first rule). Starting over after the retries only drops reports, never a
 * logged view.
 */
final class RestartLeader {
    /** Retry periods a prepared decision waits for its members' acks before the leader hears everyone afresh. */
    static final int MAX_PREPARE_RETRIES = 5;

    /** What the engine does after a {@link #step}. */
    sealed interface Step {}

    /** Nothing to send: reports are missing, or a quorum just formed and stragglers get one more period. */
    record Wait() implements Step {}

    /** Send the prepare of {@code decision} to each of its members that has not acked it ({@link #acked}). */
    record Prepare(RestartPlanner.Decision decision) implements Step {}

    /** Every member logged {@code decision}: send the commit to its members (and install it here). */
    record Commit(RestartPlanner.Decision decision) implements Step {}

    private final Map<NodeId, RestartPlanner.Report> reports = new HashMap<>();
    /** The reports formed a quorum at the last step: the next step decides. */
    private boolean quorumHeard;
    private String waiting;
    private RestartPlanner.Decision preparing;
    private final Set<NodeId> acks = new HashSet<>();
    private int preparingRetries;
    private RestartPlanner.Decision committed;

    /** The newest report of a restarting member replaces its older one. */
    void report(RestartPlanner.Report r) {
        reports.put(r.from(), r);
    }

    /**
     * A member logged the prepared restart view {@code vid}.
     *
     * @return whether every member of the prepared decision has now logged it (the engine steps at once)
     */
    boolean ack(NodeId from, long vid) {
        if (preparing == null) return false;
        if (vid == preparing.vid()) acks.add(from);
        return acks.containsAll(preparing.members());
    }

    boolean acked(NodeId member) {
        return acks.contains(member);
    }

    /**
     * One step of the round, on every join retry and whenever the last ack arrives.
     *
     * @param decide the decision from the reports ({@link RestartPlanner#decide}; a broken twin in the tests decides otherwise)
     */
    Step step(Function<Collection<RestartPlanner.Report>, RestartPlanner.Outcome> decide) {
        if (preparing != null) {
            if (acks.containsAll(preparing.members())) {
                committed = preparing;
                preparing = null;
                return new Commit(committed);
            }
            if (++preparingRetries > MAX_PREPARE_RETRIES) {
                // Someone did not log it in time (it crashed again): hear everyone afresh. Those that logged it
                // report it as their newest view, so the next decision builds on it.
                preparing = null;
                reports.clear();
                quorumHeard = false;
                return new Wait();
            }
            return new Prepare(preparing);
        }
        switch (decide.apply(reports.values())) {
            case RestartPlanner.Waiting w -> {
                waiting = w.reason();
                quorumHeard = false;
                return new Wait();
            }
            case RestartPlanner.Decided d -> {
                waiting = null;
                if (!quorumHeard) {
                    quorumHeard = true; // the quorum formed: give stragglers one more round
                    return new Wait();
                }
                preparing = d.decision();
                preparingRetries = 0;
                acks.clear();
                reports.clear();
                quorumHeard = false;
                return new Prepare(preparing);
            }
        }
    }

    /** The last decision committed (its members may ask for the commit again), or null. */
    RestartPlanner.Decision committed() {
        return committed;
    }

    /** Why the leader is still waiting for reports, or null. */
    String waiting() {
        return waiting;
    }
}
