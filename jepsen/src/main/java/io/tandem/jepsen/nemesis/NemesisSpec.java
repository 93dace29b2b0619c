package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The fault schedule of a run, from the {@code :nemesis} map of a workload spec (and the command line):
 * which fault packages run, how often, against which targets and how hard.
 *
 * @param faults            the packages that run; each flip-flops start/stop on its own schedule
 * @param interval          mean time between two ops of one package (Jepsen's {@code :interval})
 * @param targets           per package, the target specs drawn from ({@code :one :minority :majority
 *                          :minority-third :majorities-ring :one-way :primaries :shard :all})
 * @param packetBehaviors   the behaviours the packet fault draws from
 * @param cpuPercent        slow CPU: the quota, in percent of one CPU
 * @param diskBytesPerSecond slow disk: the read and write bandwidth
 * @param diskIops          slow disk: read and write operations per second
 * @param maxClockOffset    clock: offsets are drawn from {@code [-max, max]}
 * @param schedule          how the packages' episodes are laid out in time
 */
public record NemesisSpec(Set<FaultKind> faults, Duration interval, Map<FaultKind, List<Keyword>> targets,
                          List<PacketBehavior> packetBehaviors, int cpuPercent, long diskBytesPerSecond, long diskIops,
                          Duration maxClockOffset, Schedule schedule) {
    /** How fault episodes are laid out in time ({@code :schedule} of the spec, {@code --nemesis-schedule}). */
    public enum Schedule {
        /**
         * Jepsen's combined nemesis: every package flip-flops on its own staggered schedule, so faults of
         * different packages overlap (two packages that each take a minority may take a majority together).
         */
        STAGGERED("staggered"),
        /**
         * For protocols whose fault model allows at most a minority out at any moment and no partitions of
         * a majority (virtual synchrony, derecho.md §1.1, §5.2: the minority side shuts down and rejoins):
         * one episode at a time over at most a minority, then a heal, then a wait until every node is back
         * in the group's configuration (same epoch everywhere, every node a member) before the next one.
         * Only target specs that never take out a majority are accepted.
         */
        ONE_AT_A_TIME("one-at-a-time");

        private final String specName;

        Schedule(String specName) {
            this.specName = specName;
        }

        public String specName() {
            return specName;
        }

        /** Parses {@code staggered} or {@code one-at-a-time}. */
        public static Schedule parse(String name) {
            for (Schedule s : values()) if (s.specName.equals(name)) return s;
            throw new IllegalArgumentException("unknown nemesis schedule '" + name + "'; known: staggered, one-at-a-time");
        }
    }

    /**
     * Target specs that can take out a majority of the nodes, per fault kind: refused under
     * {@link Schedule#ONE_AT_A_TIME}. Partition {@code :majority} splits the nodes in halves, which
     * leaves a majority on one side, so it only cuts a minority off.
     */
    private static final Set<String> BEYOND_A_MINORITY = Set.of("all", "majorities-ring", "one-way");

    public NemesisSpec {
        Objects.requireNonNull(schedule, "schedule");
        faults = faults.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(faults));
        Objects.requireNonNull(interval, "interval");
        if (interval.isNegative() || interval.isZero()) throw new IllegalArgumentException("interval must be positive");
        EnumMap<FaultKind, List<Keyword>> t = new EnumMap<>(FaultKind.class);
        targets.forEach((k, v) -> t.put(k, List.copyOf(v)));
        targets = Map.copyOf(t);
        packetBehaviors = List.copyOf(packetBehaviors);
        if (packetBehaviors.isEmpty()) throw new IllegalArgumentException("at least one packet behaviour is needed");
        if (cpuPercent < 1 || cpuPercent > 100) throw new IllegalArgumentException("cpuPercent must be in 1..100");
        if (diskBytesPerSecond < 4096 || diskIops < 1) throw new IllegalArgumentException("disk throttle too low");
        Objects.requireNonNull(maxClockOffset, "maxClockOffset");
        if (schedule == Schedule.ONE_AT_A_TIME) {
            for (FaultKind k : faults) {
                if (k == FaultKind.PACKET || k == FaultKind.CLOCK) continue; // they take no node out
                for (Keyword target : targetsOf(k, targets)) {
                    boolean majorityOfNodes = target.name().equals("majority") && k != FaultKind.PARTITION;
                    if (BEYOND_A_MINORITY.contains(target.name()) || majorityOfNodes) {
                        throw new IllegalArgumentException("the one-at-a-time schedule takes at most a minority out, but " + k.cliName()
                                + " has target :" + target.name() + " (give " + k.cliName() + " {:targets [...]} without it)");
                    }
                }
            }
        }
    }

    /** The target specs of a package (Jepsen's defaults where the spec names none). */
    public List<Keyword> targetsOf(FaultKind kind) {
        return targetsOf(kind, targets);
    }

    private static List<Keyword> targetsOf(FaultKind kind, Map<FaultKind, List<Keyword>> targets) {
        List<Keyword> t = targets.get(kind);
        if (t != null) return t;
        return switch (kind) {
            case PARTITION -> keywords("one", "majority", "majorities-ring", "one-way", "primaries");
            case KILL -> keywords("one", "minority", "primaries", "all");
            case PAUSE, SLOW_CPU, SLOW_DISK -> keywords("one", "minority", "primaries");
            case PACKET -> keywords("one", "all");
            case CLOCK -> keywords("one", "minority", "all");
            case MEMBER -> keywords("one");
        };
    }

    public NemesisSpec withFaults(Set<FaultKind> newFaults) {
        return new NemesisSpec(newFaults, interval, targets, packetBehaviors, cpuPercent, diskBytesPerSecond, diskIops, maxClockOffset, schedule);
    }

    public NemesisSpec withInterval(Duration newInterval) {
        return new NemesisSpec(faults, newInterval, targets, packetBehaviors, cpuPercent, diskBytesPerSecond, diskIops, maxClockOffset, schedule);
    }

    public NemesisSpec withSchedule(Schedule newSchedule) {
        return new NemesisSpec(faults, interval, targets, packetBehaviors, cpuPercent, diskBytesPerSecond, diskIops, maxClockOffset, newSchedule);
    }

    private static List<Keyword> keywords(String... names) {
        return java.util.Arrays.stream(names).map(Keyword::of).toList();
    }
}
