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
 *                          :minority-third :majorities-ring :one-way :primaries :all})
 * @param packetBehaviors   the behaviours the packet fault draws from
 * @param cpuPercent        slow CPU: the quota, in percent of one CPU
 * @param diskBytesPerSecond slow disk: the read and write bandwidth
 * @param diskIops          slow disk: read and write operations per second
 * @param maxClockOffset    clock: offsets are drawn from {@code [-max, max]}
 */
public record NemesisSpec(Set<FaultKind> faults, Duration interval, Map<FaultKind, List<Keyword>> targets,
                          List<PacketBehavior> packetBehaviors, int cpuPercent, long diskBytesPerSecond, long diskIops,
                          Duration maxClockOffset) {
    public NemesisSpec {
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
    }

    /** The target specs of a package (Jepsen's defaults where the spec names none). */
    public List<Keyword> targetsOf(FaultKind kind) {
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
        return new NemesisSpec(newFaults, interval, targets, packetBehaviors, cpuPercent, diskBytesPerSecond, diskIops, maxClockOffset);
    }

    public NemesisSpec withInterval(Duration newInterval) {
        return new NemesisSpec(faults, newInterval, targets, packetBehaviors, cpuPercent, diskBytesPerSecond, diskIops, maxClockOffset);
    }

    private static List<Keyword> keywords(String... names) {
        return java.util.Arrays.stream(names).map(Keyword::of).toList();
    }
}
