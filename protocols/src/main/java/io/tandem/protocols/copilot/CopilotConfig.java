package io.tandem.protocols.copilot;

import java.time.Duration;
import java.util.Objects;

/**
 * Every setting of the Copilot engine with validated defaults ({@link #DEFAULTS}, copilot.md Appendix A).
 *
 * @param pingPong             ping-pong batching (§4.1): a pilot closes a batch only when it receives
 *                             the other pilot's FastAccept or its ping-pong wait expires; off: every
 *                             command is proposed at once (the ablation of S1b)
 * @param pingPongWait         how long a pilot without the ball waits before proposing anyway (paper: 1 ms)
 * @param nullDepElimination   null-dependency elimination (§4.2): a committed entry runs ahead of
 *                             uncommitted other-log entries whose commands all executed already; off:
 *                             it always waits for them (or a takeover)
 * @param takeoverTimeout      how long a pilot's committed entry may be blocked on the other log before
 *                             the pilot takes the blocking slots over (paper: 10 ms)
 * @param fastPathWait         after a majority of FastAccept replies, how long a pilot still waits for a
 *                             fast quorum before it takes the slow path (§3.5 [rec])
 * @param resendInterval       an unanswered FastAccept, Accept or Prepare is resent after this long (at most
 *                             once per interval, adapted to the peer's round trip by its {@link io.tandem.protocols.failslow.PeerLink})
 * @param catchUpInterval      a replica whose execution stayed blocked this long asks its peers for the commits it lacks
 * @param maxBatch             commands per batch (paper's Go code: 5000)
 * @param maxInflightSlots     a pilot's own slots proposed and not yet committed; more commands wait in its queue
 * @param maxInflightMessages  per-peer bound on FastAccepts and Accepts sent and not yet answered (DESIGN §3 rule 2):
 *                             a peer beyond it gets only the Commits and catches up with them
 * @param maxQueuedCommands    commands waiting for a batch at a pilot; more are rejected as Overloaded
 * @param detectorInterval     cadence of the slowness detector
 * @param quorumHistoryWindow  least decisions a same-quorum warning needs
 * @param beaconInterval       how often a pilot announces its view to every member ({@code StartView}, §3.10; Go: 100 ms)
 * @param viewChangeTimeout    how long a member hears nothing from a log's pilot before it stands for
 *                             that log (members further from the pilot wait longer; Go: 1 s). Pilot
 *                             election is for failures: a slow pilot is masked by the other one and
 *                             by takeovers, never by electing a new one
 * @param snapshotThreshold    a replica snapshots the state machine once it ran this many slots (of both
 *                             logs together) since its last snapshot, and then compacts both logs below it
 * @param logRetentionSlots    executed slots of each log a replica keeps behind its snapshot, so that a peer
 *                             a little behind catches up with commits rather than the whole snapshot
 * @param snapshotChunkBytes   size of one chunk of a snapshot sent to a replica that needs a compacted slot
 * @param commitPiggyback      a pilot's Commit of its own slot goes at once only to the other pilot (the one member
 *                             that needs it to order, execute and answer clients); the other replicas get it inside
 *                             the pilot's next FastAccept, or as a plain Commit after {@code commitPiggybackWait}.
 *                             Off: the Commit goes to every member at once (§3.5 as written). An optimisation of
 *                             the healthy path (copilot17), switchable for the ablation like §4's
 * @param commitPiggybackWait  the longest a non-pilot replica's Commit waits for the pilot's next FastAccept
 */
public record CopilotConfig(
        boolean pingPong,
        Duration pingPongWait,
        boolean nullDepElimination,
        Duration takeoverTimeout,
        Duration fastPathWait,
        Duration resendInterval,
        Duration catchUpInterval,
        int maxBatch,
        int maxInflightSlots,
        int maxInflightMessages,
        int maxQueuedCommands,
        Duration detectorInterval,
        int quorumHistoryWindow,
        Duration beaconInterval,
        Duration viewChangeTimeout,
        long snapshotThreshold,
        long logRetentionSlots,
        int snapshotChunkBytes,
        boolean commitPiggyback,
        Duration commitPiggybackWait) {

    public static final CopilotConfig DEFAULTS = new CopilotConfig(
            true, Duration.ofMillis(1), true, Duration.ofMillis(10), Duration.ofMillis(2), Duration.ofMillis(50), Duration.ofMillis(50),
            5000, 64, 256, 100_000, Duration.ofSeconds(1), 64, Duration.ofMillis(100), Duration.ofSeconds(1),
            10_000, 1_000, 256 << 10, true, Duration.ofMillis(1));

    public CopilotConfig {
        positive("pingPongWait", pingPongWait);
        positive("takeoverTimeout", takeoverTimeout);
        positive("fastPathWait", fastPathWait);
        positive("resendInterval", resendInterval);
        positive("catchUpInterval", catchUpInterval);
        positive("detectorInterval", detectorInterval);
        positive("beaconInterval", beaconInterval);
        positive("viewChangeTimeout", viewChangeTimeout);
        positive("commitPiggybackWait", commitPiggybackWait);
        if (viewChangeTimeout.compareTo(beaconInterval.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("viewChangeTimeout (" + viewChangeTimeout + ") must be at least two beacon intervals (" + beaconInterval + ")");
        }
        if (maxBatch < 1) throw new IllegalArgumentException("maxBatch must be >= 1, was " + maxBatch);
        if (maxInflightSlots < 1) throw new IllegalArgumentException("maxInflightSlots must be >= 1, was " + maxInflightSlots);
        if (maxInflightMessages < 1) throw new IllegalArgumentException("maxInflightMessages must be >= 1, was " + maxInflightMessages);
        if (maxQueuedCommands < 1) throw new IllegalArgumentException("maxQueuedCommands must be >= 1, was " + maxQueuedCommands);
        if (snapshotThreshold < 1) throw new IllegalArgumentException("snapshotThreshold must be >= 1, was " + snapshotThreshold);
        if (logRetentionSlots < 0) throw new IllegalArgumentException("logRetentionSlots must be >= 0, was " + logRetentionSlots);
        if (snapshotChunkBytes < 1) throw new IllegalArgumentException("snapshotChunkBytes must be >= 1, was " + snapshotChunkBytes);
        if (quorumHistoryWindow < 1) throw new IllegalArgumentException("quorumHistoryWindow must be >= 1, was " + quorumHistoryWindow);
    }

    private static void positive(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be > 0, was " + d);
    }

    public CopilotConfig withPingPong(boolean on) {
        return new CopilotConfig(on, pingPongWait, nullDepElimination, takeoverTimeout, fastPathWait, resendInterval, catchUpInterval, maxBatch,
                maxInflightSlots, maxInflightMessages, maxQueuedCommands, detectorInterval, quorumHistoryWindow, beaconInterval, viewChangeTimeout,
                snapshotThreshold, logRetentionSlots, snapshotChunkBytes, commitPiggyback, commitPiggybackWait);
    }

    public CopilotConfig withNullDepElimination(boolean on) {
        return new CopilotConfig(pingPong, pingPongWait, on, takeoverTimeout, fastPathWait, resendInterval, catchUpInterval, maxBatch,
                maxInflightSlots, maxInflightMessages, maxQueuedCommands, detectorInterval, quorumHistoryWindow, beaconInterval, viewChangeTimeout,
                snapshotThreshold, logRetentionSlots, snapshotChunkBytes, commitPiggyback, commitPiggybackWait);
    }

    public CopilotConfig withTimers(Duration pingPongWait, Duration takeoverTimeout, Duration fastPathWait, Duration resendInterval, Duration catchUpInterval) {
        return new CopilotConfig(pingPong, pingPongWait, nullDepElimination, takeoverTimeout, fastPathWait, resendInterval, catchUpInterval, maxBatch,
                maxInflightSlots, maxInflightMessages, maxQueuedCommands, detectorInterval, quorumHistoryWindow, beaconInterval, viewChangeTimeout,
                snapshotThreshold, logRetentionSlots, snapshotChunkBytes, commitPiggyback, commitPiggybackWait);
    }

    public CopilotConfig withLimits(int maxBatch, int maxInflightSlots, int maxInflightMessages, int maxQueuedCommands) {
        return new CopilotConfig(pingPong, pingPongWait, nullDepElimination, takeoverTimeout, fastPathWait, resendInterval, catchUpInterval, maxBatch,
                maxInflightSlots, maxInflightMessages, maxQueuedCommands, detectorInterval, quorumHistoryWindow, beaconInterval, viewChangeTimeout,
                snapshotThreshold, logRetentionSlots, snapshotChunkBytes, commitPiggyback, commitPiggybackWait);
    }

    public CopilotConfig withDetector(Duration interval, int window) {
        return new CopilotConfig(pingPong, pingPongWait, nullDepElimination, takeoverTimeout, fastPathWait, resendInterval, catchUpInterval, maxBatch,
                maxInflightSlots, maxInflightMessages, maxQueuedCommands, interval, window, beaconInterval, viewChangeTimeout,
                snapshotThreshold, logRetentionSlots, snapshotChunkBytes, commitPiggyback, commitPiggybackWait);
    }

    public CopilotConfig withElection(Duration beaconInterval, Duration viewChangeTimeout) {
        return new CopilotConfig(pingPong, pingPongWait, nullDepElimination, takeoverTimeout, fastPathWait, resendInterval, catchUpInterval, maxBatch,
                maxInflightSlots, maxInflightMessages, maxQueuedCommands, detectorInterval, quorumHistoryWindow, beaconInterval, viewChangeTimeout,
                snapshotThreshold, logRetentionSlots, snapshotChunkBytes, commitPiggyback, commitPiggybackWait);
    }

    public CopilotConfig withSnapshots(long snapshotThreshold, long logRetentionSlots, int snapshotChunkBytes) {
        return new CopilotConfig(pingPong, pingPongWait, nullDepElimination, takeoverTimeout, fastPathWait, resendInterval, catchUpInterval, maxBatch,
                maxInflightSlots, maxInflightMessages, maxQueuedCommands, detectorInterval, quorumHistoryWindow, beaconInterval, viewChangeTimeout,
                snapshotThreshold, logRetentionSlots, snapshotChunkBytes, commitPiggyback, commitPiggybackWait);
    }

    public CopilotConfig withCommitPiggyback(boolean on, Duration wait) {
        return new CopilotConfig(pingPong, pingPongWait, nullDepElimination, takeoverTimeout, fastPathWait, resendInterval, catchUpInterval, maxBatch,
                maxInflightSlots, maxInflightMessages, maxQueuedCommands, detectorInterval, quorumHistoryWindow, beaconInterval, viewChangeTimeout,
                snapshotThreshold, logRetentionSlots, snapshotChunkBytes, on, wait);
    }
}
