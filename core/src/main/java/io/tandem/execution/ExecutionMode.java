package io.tandem.execution;

import java.util.Locale;

/** How a service executes its ordered commands (opt-psmr.md §1-§3); chosen per service by configuration. */
public enum ExecutionMode {
    /** One command at a time in log order ({@link SequentialExecutor}). */
    SEQUENTIAL("sequential"),
    /** P-SMR: every command to each group it may conflict with (CC-G); multi-group commands in lock-step. */
    PSMR("psmr"),
    /** Optimistic P-SMR: static conflicts only (OC-G) plus a safety check; a failed command is re-sent to CC-G. */
    OPT_PSMR("opt-psmr");

    private final String text;

    ExecutionMode(String text) {
        this.text = text;
    }

    public String text() {
        return text;
    }

    /** Parses {@code sequential}, {@code psmr} or {@code opt-psmr} (case-insensitive); a clear error otherwise. */
    public static ExecutionMode parse(String s) {
        String t = s == null ? "" : s.trim().toLowerCase(Locale.ROOT);
        for (ExecutionMode m : values()) if (m.text.equals(t)) return m;
        throw new IllegalArgumentException("unknown execution mode '" + s + "': use sequential, psmr or opt-psmr");
    }

    @Override
    public String toString() {
        return text;
    }
}
