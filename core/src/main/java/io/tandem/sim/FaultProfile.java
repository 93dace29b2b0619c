package io.tandem.sim;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * A shape of the fault phase applied on top of the options (issue 16): the default disk latency and
 * crash rate are too gentle to expose an acknowledgement sent before its fsync, so the seed mix
 * includes crash-heavy and slow-disk runs. {@link #MIXED} picks one profile per seed, from the seed
 * alone, so a failing seed replays with the same flags.
 */
public enum FaultProfile {
    /** The options as given. */
    STANDARD,
    /**
     * Crashes (and pauses) three times as often, in short episodes, and a crash keeps a random prefix of
     * the unsynced writes half of the time, with a torn record after it (what the storage contract allows).
     */
    CRASH_HEAVY,
    /** Disk flushes take 2 to 25 ms (against network latency of at most 2 ms): a reply sent before the flush has a long window. */
    SLOW_DISK,
    /** Per seed: a quarter crash-heavy, a quarter slow-disk, the rest standard. */
    MIXED;

    public String flag() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static FaultProfile parse(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        try {
            return valueOf(t);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown fault profile '" + text + "': use standard, mixed, crash-heavy or slow-disk", e);
        }
    }

    /** The profile this one runs as for {@code seed} ({@link #MIXED} resolves to one of the others). */
    public FaultProfile forSeed(long seed) {
        if (this != MIXED) return this;
        long h = seed * 0x9E3779B97F4A7C15L;
        return switch ((int) Math.floorMod(h ^ (h >>> 29), 4L)) {
            case 0 -> CRASH_HEAVY;
            case 1 -> SLOW_DISK;
            default -> STANDARD;
        };
    }

    /** The options a run of {@code options.seed()} uses under this profile. */
    SimOptions apply(SimOptions options) {
        return switch (forSeed(options.seed())) {
            case STANDARD, MIXED -> options;
            case CRASH_HEAVY -> {
                if (!options.faults().contains(FaultKind.CRASH)) yield options; // a run without crashes stays so
                Set<FaultKind> kinds = EnumSet.of(FaultKind.CRASH);
                if (options.faults().contains(FaultKind.PAUSE)) kinds.add(FaultKind.PAUSE);
                if (options.faults().contains(FaultKind.PARTITION)) kinds.add(FaultKind.PARTITION);
                yield options.toBuilder()
                        .faults(kinds)
                        .faultsPerSecond(options.faultsPerSecond() * 3)
                        .meanFaultNanos(Math.max(SimTime.millis(50), options.meanFaultNanos() / 3))
                        .tornWrites(true)
                        .unsyncedSurvival(Math.max(options.unsyncedSurvival(), 0.5))
                        .build();
            }
            case SLOW_DISK -> options.toBuilder().diskLatency(new Latency.Uniform(SimTime.millis(2), SimTime.millis(25))).build();
        };
    }
}
