package io.tandem.sim;

import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;

/**
 * The faults of one run, in time order. Generated from the seed ({@link #generate}) or given
 * explicitly (a minimized schedule, {@code --schedule}); the text form is
 * {@code 120ms=crash:n2;480ms=restart:n2;...}.
 */
public record FaultSchedule(List<Fault.Scheduled> events) {
    public static final FaultSchedule EMPTY = new FaultSchedule(List.of());

    public FaultSchedule {
        List<Fault.Scheduled> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparingLong(Fault.Scheduled::atNanos)); // stable: ties keep their order
        events = List.copyOf(sorted);
    }

    public int size() {
        return events.size();
    }

    /** This schedule without the events at positions [from, to). */
    public FaultSchedule without(int from, int to) {
        List<Fault.Scheduled> kept = new ArrayList<>(events.subList(0, from));
        kept.addAll(events.subList(to, events.size()));
        return new FaultSchedule(kept);
    }

    public String format() {
        return events.stream().map(Fault.Scheduled::format).collect(Collectors.joining(";"));
    }

    public static FaultSchedule parse(String text) {
        List<Fault.Scheduled> events = new ArrayList<>();
        for (String item : text.split(";")) {
            if (item.isBlank()) continue;
            int eq = item.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("schedule item '" + item + "' is not <time>=<fault>");
            events.add(new Fault.Scheduled(SimTime.parse(item.substring(0, eq)), Fault.parse(item.substring(eq + 1))));
        }
        return new FaultSchedule(events);
    }

    /**
     * Random fault episodes over the fault phase [0, duration): episodes start as a Poisson process
     * of {@code faultsPerSecond}, each of a kind drawn from {@code options.faults()}, and last an
     * exponential time of mean {@code options.meanFaultNanos()}. An episode still open when the fault
     * phase ends is closed by the heal-everything step that starts the liveness phase.
     */
    public static FaultSchedule generate(RandomGenerator random, SimOptions options, List<NodeId> members) {
        List<FaultKind> kinds = options.faults().stream().sorted().toList();
        if (kinds.isEmpty() || options.faultsPerSecond() <= 0) return EMPTY;
        List<Fault.Scheduled> events = new ArrayList<>();
        long duration = options.durationNanos();
        double meanGap = SimTime.SECONDS / options.faultsPerSecond();
        long t = 0;
        while (true) {
            t += (long) (random.nextExponential() * meanGap);
            if (t >= duration) break;
            FaultKind kind = kinds.get(random.nextInt(kinds.size()));
            long end = t + Math.max(SimTime.MILLIS, (long) (random.nextExponential() * options.meanFaultNanos()));
            NodeId node = members.get(random.nextInt(members.size()));
            Fault start;
            Fault stop;
            switch (kind) {
                case PARTITION -> {
                    start = partition(random, members);
                    stop = new Fault.Heal();
                }
                case CRASH -> {
                    start = new Fault.Crash(node);
                    stop = new Fault.Restart(node);
                }
                case PAUSE -> {
                    start = new Fault.Pause(node);
                    stop = new Fault.Resume(node);
                }
                case CLOCK -> {
                    start = new Fault.ClockJump(node, random.nextLong(SimTime.MILLIS, 2 * SimTime.SECONDS));
                    stop = null;
                }
                case SLOW -> {
                    int factor = random.nextInt(5, 51);
                    if (members.size() > 1 && random.nextBoolean()) {
                        NodeId to;
                        do {
                            to = members.get(random.nextInt(members.size()));
                        } while (to.equals(node));
                        Fault.Link link = new Fault.Link(node, to);
                        start = new Fault.SlowLink(link, factor);
                        stop = new Fault.UnslowLink(link);
                    } else {
                        start = new Fault.Slow(node, factor);
                        stop = new Fault.Unslow(node);
                    }
                }
                case LOSS -> {
                    start = new Fault.LossBurst(Math.round(random.nextDouble(0.2, 0.9) * 100) / 100.0);
                    stop = new Fault.LossEnd();
                }
                default -> throw new IllegalStateException("unhandled fault kind " + kind);
            }
            events.add(new Fault.Scheduled(t, start));
            if (stop != null && end < duration) events.add(new Fault.Scheduled(end, stop));
        }
        return new FaultSchedule(events);
    }

    /** A partition of a random shape, in the spirit of Jepsen's grudges. */
    static Fault.Partition partition(RandomGenerator random, List<NodeId> members) {
        int n = members.size();
        List<String> shapes = new ArrayList<>(List.of("isolate", "halves", "one-way"));
        if (n >= 3) shapes.add("bridge");
        if (n >= 5) shapes.add("ring");
        String shape = shapes.get(random.nextInt(shapes.size()));
        Set<Fault.Link> blocked = new TreeSet<>(Fault.Link.ORDER);
        if (n < 2) return new Fault.Partition(shape, blocked);
        List<NodeId> order = shuffled(random, members);
        switch (shape) {
            case "isolate" -> cut(blocked, order.subList(0, 1), order.subList(1, n));
            case "halves" -> {
                int k = random.nextInt(1, n);
                cut(blocked, order.subList(0, k), order.subList(k, n));
            }
            case "one-way" -> {
                NodeId x = order.getFirst();
                boolean deaf = random.nextBoolean(); // x hears nobody (but is heard), or x is heard by nobody (but hears)
                for (NodeId other : order.subList(1, n)) blocked.add(deaf ? new Fault.Link(other, x) : new Fault.Link(x, other));
            }
            case "bridge" -> {
                // order[0] is the bridge, connected to both sides, which cannot see each other
                int k = random.nextInt(2, n);
                cut(blocked, order.subList(1, k), order.subList(k, n));
            }
            case "ring" -> {
                // each node sees the nodes within distance d on a ring: a majority, but a different one for each
                int d = ((n / 2) + 1) / 2;
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < n; j++) {
                        int dist = Math.abs(i - j);
                        if (Math.min(dist, n - dist) > d) blocked.add(new Fault.Link(order.get(i), order.get(j)));
                    }
                }
            }
            default -> throw new IllegalStateException(shape);
        }
        return new Fault.Partition(shape, blocked);
    }

    private static void cut(Set<Fault.Link> blocked, List<NodeId> a, List<NodeId> b) {
        for (NodeId x : a) {
            for (NodeId y : b) {
                blocked.add(new Fault.Link(x, y));
                blocked.add(new Fault.Link(y, x));
            }
        }
    }

    private static List<NodeId> shuffled(RandomGenerator random, List<NodeId> members) {
        List<NodeId> order = new ArrayList<>(members);
        for (int i = order.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            NodeId tmp = order.get(i);
            order.set(i, order.get(j));
            order.set(j, tmp);
        }
        return order;
    }
}
