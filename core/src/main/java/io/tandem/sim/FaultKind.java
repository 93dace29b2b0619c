package io.tandem.sim;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** The kinds of fault episodes the generator can schedule; each starts a fault and (except clock jumps) later ends it. */
public enum FaultKind {
    /** A network partition of some shape (isolate one, halves, one-way, bridge, ring), then heal. */
    PARTITION,
    /** Crash a node (losing its unsynced writes), then restart it from its disk. */
    CRASH,
    /** Pause a node (its events queue up, timers fire late), then resume it. */
    PAUSE,
    /** Jump a node's clock forward. */
    CLOCK,
    /** Make a node slow (its links and its disk get a latency multiplier) or one directed link slow, then back to normal. */
    SLOW,
    /** A burst of heavy message loss on every link, then back to the base loss rate. */
    LOSS;

    public String flag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses "all", "none" or a comma-separated list such as "partition,crash". */
    public static Set<FaultKind> parseList(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("all")) return EnumSet.allOf(FaultKind.class);
        if (t.equals("none") || t.isEmpty()) return EnumSet.noneOf(FaultKind.class);
        EnumSet<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
        for (String part : t.split(",")) {
            String name = part.trim();
            try {
                kinds.add(valueOf(name.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown fault '" + name + "': use all, none or a list of " + formatList(EnumSet.allOf(FaultKind.class)), e);
            }
        }
        return kinds;
    }

    public static String formatList(Set<FaultKind> kinds) {
        if (kinds.isEmpty()) return "none";
        if (kinds.size() == values().length) return "all";
        return kinds.stream().sorted().map(FaultKind::flag).collect(Collectors.joining(","));
    }
}
