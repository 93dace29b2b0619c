package io.tandem.engine;

import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Settings that a process hosting a protocol (the KV server, an application embedding Tandem) states
 * in one vocabulary for every protocol, so that it never needs to know which engine it runs: the
 * protocol applies the ones that mean something to it ({@link Protocol#withHostSettings}) and refuses,
 * with a message naming the setting, one it has no equivalent for. A setting left unset (null, or no
 * voters) keeps the protocol's own value.
 *
 * @param electionTimeoutMin   lower bound of the randomized time without a word from the leader after
 *                             which a member stands for election ({@link Kind#ELECTION_TIMEOUT}); null
 *                             for the protocol's own
 * @param electionTimeoutMax   upper bound (exclusive) of that time; null for the protocol's own
 * @param snapshotThreshold    a snapshot is taken after this many commands were applied since the last
 *                             one ({@link Kind#SNAPSHOT_THRESHOLD}); null for the protocol's own
 * @param initialVoters        the voters of a new group; the other members join through membership
 *                             changes ({@link Kind#INITIAL_VOTERS}); empty: every member votes
 * @param restartAfterShutdown how long a member that shut itself down (on the minority side of a
 *                             partition, or removed while alive) waits before it asks to join again, as
 *                             a process would be restarted by a supervisor; null for the protocol's own.
 *                             A protocol whose members never shut themselves down has nothing to apply
 *                             and takes it as satisfied.
 */
public record HostSettings(
        Duration electionTimeoutMin,
        Duration electionTimeoutMax,
        Long snapshotThreshold,
        Set<NodeId> initialVoters,
        Duration restartAfterShutdown) {

    /** Nothing set: every protocol keeps its own values. */
    public static final HostSettings NONE = new HostSettings(null, null, null, Set.of(), null);

    /** A setting a protocol must honour or refuse (restart-after-shutdown is the one it may have no use for). */
    public enum Kind {
        ELECTION_TIMEOUT("election-timeout"),
        SNAPSHOT_THRESHOLD("snapshot-threshold"),
        INITIAL_VOTERS("initial-voters");

        private final String settingName;

        Kind(String settingName) {
            this.settingName = settingName;
        }

        /** The name users know it by (the KV server's config keys start with it). */
        public String settingName() {
            return settingName;
        }
    }

    public HostSettings {
        if (electionTimeoutMin != null) positive("election-timeout-min", electionTimeoutMin);
        if (electionTimeoutMax != null) positive("election-timeout-max", electionTimeoutMax);
        if (electionTimeoutMin != null && electionTimeoutMax != null) checkRange(electionTimeoutMin, electionTimeoutMax);
        if (snapshotThreshold != null && snapshotThreshold < 1) {
            throw new IllegalArgumentException("snapshot-threshold must be at least 1, was " + snapshotThreshold);
        }
        initialVoters = Set.copyOf(new LinkedHashSet<>(Objects.requireNonNull(initialVoters, "initialVoters")));
        if (restartAfterShutdown != null) positive("restart-after-shutdown", restartAfterShutdown);
    }

    /** A randomized timeout's bounds: from {@code min} (inclusive) to {@code max} (exclusive). */
    public record TimeoutRange(Duration min, Duration max) {}

    /**
     * The election timeout with an unset bound taken from the protocol's own ({@code ownMin},
     * {@code ownMax}); null if neither bound is set.
     *
     * @throws IllegalArgumentException if the range that results is empty
     */
    public TimeoutRange electionTimeout(Duration ownMin, Duration ownMax) {
        if (electionTimeoutMin == null && electionTimeoutMax == null) return null;
        Duration min = electionTimeoutMin != null ? electionTimeoutMin : ownMin;
        Duration max = electionTimeoutMax != null ? electionTimeoutMax : ownMax;
        checkRange(min, max);
        return new TimeoutRange(min, max);
    }

    private static void checkRange(Duration min, Duration max) {
        if (max.compareTo(min) <= 0) {
            throw new IllegalArgumentException("election-timeout-max (" + text(max) + ") must be above election-timeout-min (" + text(min) + ")");
        }
    }

    /** 1500 ms as "1.5s", 300 ms as "300ms": the way the settings are written. */
    static String text(Duration d) {
        long ms = d.toMillis();
        if (d.toNanos() % 1_000_000 != 0) return d.toNanos() / 1000 + "us";
        if (ms >= 1000 && ms % 100 == 0) return (ms % 1000 == 0 ? Long.toString(ms / 1000) : (ms / 1000) + "." + (ms % 1000) / 100) + "s";
        return ms + "ms";
    }

    private static void positive(String name, Duration d) {
        if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive, was " + d);
    }

    public HostSettings withElectionTimeout(Duration min, Duration max) {
        return new HostSettings(min, max, snapshotThreshold, initialVoters, restartAfterShutdown);
    }

    public HostSettings withSnapshotThreshold(long threshold) {
        return new HostSettings(electionTimeoutMin, electionTimeoutMax, threshold, initialVoters, restartAfterShutdown);
    }

    public HostSettings withInitialVoters(Set<NodeId> voters) {
        return new HostSettings(electionTimeoutMin, electionTimeoutMax, snapshotThreshold, voters, restartAfterShutdown);
    }

    public HostSettings withRestartAfterShutdown(Duration delay) {
        return new HostSettings(electionTimeoutMin, electionTimeoutMax, snapshotThreshold, initialVoters, delay);
    }

    /** The settings of {@link Kind} that are set. */
    public Set<Kind> given() {
        Set<Kind> given = EnumSet.noneOf(Kind.class);
        if (electionTimeoutMin != null || electionTimeoutMax != null) given.add(Kind.ELECTION_TIMEOUT);
        if (snapshotThreshold != null) given.add(Kind.SNAPSHOT_THRESHOLD);
        if (!initialVoters.isEmpty()) given.add(Kind.INITIAL_VOTERS);
        return given;
    }

    /**
     * Refuses the settings that are set but not among {@code accepted}, naming them and the protocol.
     *
     * @throws IllegalArgumentException if one is set that {@code protocol} does not take
     */
    public void requireOnly(String protocol, Set<Kind> accepted) {
        Set<Kind> refused = EnumSet.noneOf(Kind.class);
        refused.addAll(given());
        refused.removeAll(accepted);
        if (refused.isEmpty()) return;
        String names = refused.stream().map(Kind::settingName).collect(Collectors.joining(", "));
        String takes = accepted.isEmpty() ? "none of them" : EnumSet.copyOf(accepted).stream().map(Kind::settingName).collect(Collectors.joining(", "));
        throw new IllegalArgumentException(protocol + " has no " + names + " setting (of the host settings it takes " + takes + ")");
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("HostSettings[");
        if (electionTimeoutMin != null) b.append("election-timeout-min=").append(text(electionTimeoutMin)).append(' ');
        if (electionTimeoutMax != null) b.append("election-timeout-max=").append(text(electionTimeoutMax)).append(' ');
        if (snapshotThreshold != null) b.append("snapshot-threshold=").append(snapshotThreshold).append(' ');
        if (!initialVoters.isEmpty()) b.append("initial-voters=").append(initialVoters).append(' ');
        if (restartAfterShutdown != null) b.append("restart-after-shutdown=").append(restartAfterShutdown).append(' ');
        return b.toString().strip() + "]";
    }
}
