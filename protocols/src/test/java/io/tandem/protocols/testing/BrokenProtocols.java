package io.tandem.protocols.testing;

import io.tandem.engine.Protocol;
import io.tandem.protocols.ProtocolProvider;
import io.tandem.protocols.copilot.BrokenCopilot;
import io.tandem.protocols.copilot.CopilotConfig;
import io.tandem.protocols.failslow.SlownessDetector;
import io.tandem.protocols.multipaxos.BrokenMultiPaxos;
import io.tandem.protocols.multipaxos.MultiPaxosConfig;
import io.tandem.protocols.raft.BrokenRaft;
import io.tandem.protocols.raft.RaftConfig;
import io.tandem.protocols.toy.BuggyToy;
import io.tandem.protocols.unreplicated.AckBeforeDurable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The deliberately broken engines by name, for tests that ask for one the way a user asks for a
 * protocol ({@code --protocol raft-broken-commit-without-quorum}). It is a {@link ProtocolProvider}
 * registered in this test-jar's {@code META-INF/services}, so {@code Protocols.byName} finds these
 * names in a JVM with the protocols test-jar on its classpath (a test, or a server a test starts),
 * and nowhere else.
 *
 * <p>The fail-slow ones are not safety bugs: they check the slowness detector as a simulator
 * invariant, with a window small enough to overflow in a short run.
 */
public final class BrokenProtocols implements ProtocolProvider {
    private static final Map<String, Supplier<Protocol>> BY_NAME = new TreeMap<>();

    static {
        BY_NAME.put(BuggyToy.NAME, BuggyToy::new);
        for (BrokenRaft.Bug bug : BrokenRaft.Bug.values()) {
            BY_NAME.put(bug.protocolName(), switch (bug) {
                case COMMIT_WITHOUT_QUORUM, VOTE_BEFORE_PERSIST, STALE_READS, COMMIT_EARLIER_TERM_BY_COUNTING, LEASE_WITHOUT_DRIFT_BOUND, ACK_BEFORE_DURABLE, LEASE_KEPT_ACROSS_TRANSFER,
                        VOTE_FOR_STALE_LOG, SKIP_PREV_TERM_CHECK, COMMIT_PAST_VERIFIED, REFUSED_VOTE_RESTARTS_TIMER,
                        STALE_READ_IGNORES_MIN_INDEX, SNAPSHOT_KEEPS_CONFLICTING_SUFFIX, READ_BEFORE_TERM_COMMITS -> () -> new BrokenRaft(bug, RaftConfig.DEFAULTS);
                case UNBOUNDED_FOLLOWER_QUEUE, WAIT_FOR_ALL_FOLLOWERS -> () -> new BrokenRaft(bug, RaftConfig.builder().maxInflight(4, 1 << 20).build())
                        .checkingSlowness(SlownessDetector.SAME_QUORUM, SlownessDetector.RESEND_STORM);
            });
        }
        for (BrokenMultiPaxos.Bug bug : BrokenMultiPaxos.Bug.values()) {
            BY_NAME.put(bug.protocolName(), switch (bug) {
                case SKIP_PHASE1, ACK_BEFORE_DURABLE, PROMISE_BEFORE_DURABLE, PROMISE_LOWER_BALLOT, ACCEPT_BELOW_PROMISE, CLAIM_BEYOND_LEADER -> () -> BrokenMultiPaxos.protocol(bug, MultiPaxosConfig.DEFAULTS);
                case WAIT_FOR_ALL_ACCEPTORS -> () -> BrokenMultiPaxos.protocol(bug, MultiPaxosConfig.builder().detector(Duration.ofMillis(500), 64).build())
                        .checkingSlowness(SlownessDetector.SAME_QUORUM, SlownessDetector.RESEND_STORM);
            });
        }
        BY_NAME.put(AckBeforeDurable.NAME, AckBeforeDurable::new);
        for (BrokenCopilot.Bug bug : BrokenCopilot.Bug.values()) {
            BY_NAME.put(bug.protocolName(), switch (bug) {
                case EXECUTE_PAST_DEPENDENCIES, FAST_PATH_BELOW_FAST_QUORUM, TAKEOVER_WITHOUT_HIGHER_BALLOT -> () -> BrokenCopilot.protocol(bug, CopilotConfig.DEFAULTS);
                case ELECTION_WITHOUT_PROMISES, NEW_PILOT_REUSES_IN_FLIGHT_SLOTS, NAMED_PILOT_WITHOUT_ROLE_NEVER_STANDS -> () -> BrokenCopilot.protocol(bug, BrokenCopilot.QUICK_ELECTIONS);
                case COMPACT_UNEXECUTED, INSTALL_WITHOUT_SESSIONS, KEEP_ONLY_DEPENDENCY_RUN_AHEAD -> () -> BrokenCopilot.protocol(bug, BrokenCopilot.SMALL_SNAPSHOTS);
                case WAIT_FOR_EVERY_REPLICA -> () -> BrokenCopilot.protocol(bug, CopilotConfig.DEFAULTS.withDetector(Duration.ofMillis(500), 64))
                        .checkingSlowness(SlownessDetector.SAME_QUORUM, SlownessDetector.RESEND_STORM);
            });
        }
    }

    /** For {@link java.util.ServiceLoader}. */
    public BrokenProtocols() {}

    @Override
    public Map<String, Supplier<Protocol>> protocols() {
        return BY_NAME;
    }

    /** Every broken engine's name, sorted. */
    public static List<String> names() {
        return List.copyOf(BY_NAME.keySet());
    }

    /** A fresh instance of the broken engine called {@code name}. */
    public static Protocol byName(String name) {
        Supplier<Protocol> factory = BY_NAME.get(name);
        if (factory == null) throw new IllegalArgumentException("unknown broken protocol '" + name + "'; known: " + String.join(", ", names()));
        return factory.get();
    }

    /** True if {@code name} is one of the deliberately broken engines. */
    public static boolean isBroken(String name) {
        return BY_NAME.containsKey(name);
    }
}
