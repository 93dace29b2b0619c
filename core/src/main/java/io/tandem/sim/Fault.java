package io.tandem.sim;

import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * One scheduled fault event. Every event is safe to apply in any state (a restart of a live node or
 * a resume of a running one does nothing), so the minimizer can drop events one at a time. The text
 * form ({@link #format}/{@link #parse}) is what a failing run prints and {@code --schedule} reads.
 */
public sealed interface Fault {
    /** A directed link: messages from {@code from} to {@code to}. */
    record Link(NodeId from, NodeId to) {
        static final Comparator<Link> ORDER = Comparator.comparing(Link::from).thenComparing(Link::to);
    }

    /** Replaces any current partition: messages on the {@code blocked} links are dropped. */
    record Partition(String shape, Set<Link> blocked) implements Fault {
        public Partition {
            TreeSet<Link> sorted = new TreeSet<>(Link.ORDER);
            sorted.addAll(blocked);
            blocked = java.util.Collections.unmodifiableSet(sorted);
        }
    }

    record Heal() implements Fault {}

    record Crash(NodeId node) implements Fault {}

    record Restart(NodeId node) implements Fault {}

    record Pause(NodeId node) implements Fault {}

    record Resume(NodeId node) implements Fault {}

    /** Moves the node's clock forward by {@code deltaNanos}; timers armed on the old clock fire early. */
    record ClockJump(NodeId node, long deltaNanos) implements Fault {
        public ClockJump {
            if (deltaNanos < 0) throw new IllegalArgumentException("monotonic clocks only jump forward");
        }
    }

    /** Multiplies the latency of the node's links and of its disk by {@code factor}. */
    record Slow(NodeId node, int factor) implements Fault {
        public Slow {
            if (factor < 1) throw new IllegalArgumentException("slow factor must be >= 1");
        }
    }

    record Unslow(NodeId node) implements Fault {}

    /** Multiplies the latency of one directed link by {@code factor} (a congested or degraded path). */
    record SlowLink(Link link, int factor) implements Fault {
        public SlowLink {
            if (factor < 1) throw new IllegalArgumentException("slow factor must be >= 1");
        }
    }

    record UnslowLink(Link link) implements Fault {}

    /** Raises the loss rate of every link to {@code rate} until {@link LossEnd}. */
    record LossBurst(double rate) implements Fault {
        public LossBurst {
            if (!(rate >= 0 && rate <= 1)) throw new IllegalArgumentException("loss rate must be in [0, 1]");
        }
    }

    record LossEnd() implements Fault {}

    /**
     * The process supervisor of a deployment whose engine does not rejoin by itself: every node that is
     * up and not paused but whose engine reports itself outside its configuration
     * ({@link io.tandem.engine.EngineStatus.Role#NOT_MEMBER}, e.g. a virtual-synchrony member that shut
     * itself down) is crashed and restarted. It names no node: which members an episode made stop is
     * known only when it runs (a short partition may get a member of the majority removed on the word
     * of the isolated one, derecho.md §5.2), and restarting a fixed node instead may take out a healthy
     * member of a smaller view.
     */
    record Supervise() implements Fault {}

    /** A fault at a point of virtual time. */
    record Scheduled(long atNanos, Fault fault) {
        public String format() {
            return SimTime.format(atNanos) + "=" + Fault.format(fault);
        }
    }

    static String format(Fault fault) {
        return switch (fault) {
            case Partition p -> {
                List<String> links = new ArrayList<>();
                for (Link l : p.blocked()) links.add(l.from() + ">" + l.to());
                yield "partition:" + p.shape() + ":" + String.join(",", links);
            }
            case Heal h -> "heal";
            case Crash c -> "crash:" + c.node();
            case Restart r -> "restart:" + r.node();
            case Pause p -> "pause:" + p.node();
            case Resume r -> "resume:" + r.node();
            case ClockJump c -> "clock:" + c.node() + ":" + SimTime.format(c.deltaNanos());
            case Slow s -> "slow:" + s.node() + ":" + s.factor();
            case Unslow u -> "unslow:" + u.node();
            case SlowLink s -> "slowlink:" + s.link().from() + ">" + s.link().to() + ":" + s.factor();
            case UnslowLink u -> "unslowlink:" + u.link().from() + ">" + u.link().to();
            case LossBurst l -> "loss:" + l.rate();
            case LossEnd l -> "lossend";
            case Supervise v -> "supervise";
        };
    }

    private static Link link(String text) {
        String[] ends = text.split(">");
        if (ends.length != 2) throw new IllegalArgumentException("link '" + text + "' is not from>to");
        return new Link(NodeId.of(ends[0]), NodeId.of(ends[1]));
    }

    static Fault parse(String text) {
        String[] p = text.trim().split(":", -1);
        try {
            return switch (p[0].toLowerCase(Locale.ROOT)) {
                case "partition" -> {
                    TreeSet<Link> links = new TreeSet<>(Link.ORDER);
                    if (p.length != 3) throw new IllegalArgumentException("partition:<shape>:<a>b,...");
                    for (String l : p[2].split(",")) {
                        if (!l.isBlank()) links.add(link(l));
                    }
                    yield new Partition(p[1], links);
                }
                case "heal" -> new Heal();
                case "crash" -> new Crash(NodeId.of(p[1]));
                case "restart" -> new Restart(NodeId.of(p[1]));
                case "pause" -> new Pause(NodeId.of(p[1]));
                case "resume" -> new Resume(NodeId.of(p[1]));
                case "clock" -> new ClockJump(NodeId.of(p[1]), SimTime.parse(p[2]));
                case "slow" -> new Slow(NodeId.of(p[1]), Integer.parseInt(p[2]));
                case "unslow" -> new Unslow(NodeId.of(p[1]));
                case "slowlink" -> new SlowLink(link(p[1]), Integer.parseInt(p[2]));
                case "unslowlink" -> new UnslowLink(link(p[1]));
                case "loss" -> new LossBurst(Double.parseDouble(p[1]));
                case "lossend" -> new LossEnd();
                case "supervise" -> new Supervise();
                default -> throw new IllegalArgumentException("unknown fault '" + p[0] + "'");
            };
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid fault '" + text + "': " + e.getMessage(), e);
        }
    }
}
