package io.tandem.jepsen.nemesis;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The fault packages of the local runner, named as on the command line ({@code --nemesis partition,kill}). */
public enum FaultKind {
    /** iptables DROP rules in the node namespaces: an isolated node, halves, a majorities ring, one-way, the leader. */
    PARTITION("partition"),
    /** SIGKILL, then a restart on the same data directory. */
    KILL("kill"),
    /** SIGSTOP, then SIGCONT. */
    PAUSE("pause"),
    /** Delay, jitter, loss, duplication and reordering in the transport's fault layer (no netem in this kernel). */
    PACKET("packet"),
    /** A cgroup-v1 CPU quota. */
    SLOW_CPU("slow-cpu"),
    /** A cgroup-v1 blkio throttle on the node's loop-device disk. */
    SLOW_DISK("slow-disk"),
    /** An offset of the node's engine clock. */
    CLOCK("clock"),
    /** Removing a voter and adding it back (learner, then promotion); Raft only. */
    MEMBER("member");

    private final String cliName;

    FaultKind(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    /**
     * Parses a comma-separated list of fault names; {@code all} means every kind, {@code none} or an
     * empty string none. {@code slow-net} and {@code net} are accepted for {@code packet}.
     *
     * @throws IllegalArgumentException naming an unknown fault
     */
    public static Set<FaultKind> parse(String list) {
        Set<FaultKind> out = EnumSet.noneOf(FaultKind.class);
        for (String raw : list.split(",")) {
            String name = raw.strip().toLowerCase(Locale.ROOT);
            if (name.isEmpty() || name.equals("none")) continue;
            if (name.equals("all")) {
                out.addAll(EnumSet.allOf(FaultKind.class));
                continue;
            }
            if (name.equals("slow-net") || name.equals("net")) name = "packet";
            boolean found = false;
            for (FaultKind k : values()) {
                if (k.cliName.equals(name)) {
                    out.add(k);
                    found = true;
                }
            }
            if (!found) throw new IllegalArgumentException("unknown fault '" + raw.strip() + "'; known: all, none, " + names());
        }
        return out;
    }

    public static String names() {
        StringBuilder s = new StringBuilder();
        for (FaultKind k : values()) {
            if (!s.isEmpty()) s.append(", ");
            s.append(k.cliName);
        }
        return s.toString();
    }
}
