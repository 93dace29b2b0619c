package io.tandem.sim;

import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.random.RandomGenerator;

/**
 * Fault schedules for protocols that, by design, survive only the loss of a minority at a time and
 * take failed members back as new members (virtual synchrony without durable state, derecho.md
 * §5.2 and §5.12: no partitions, the minority side shuts itself down, and a total failure loses the
 * volatile state). The generic schedules ({@link FaultSchedule#generate}) may cut every member off
 * from a majority, after which such a protocol stops for good, so its liveness check would fail by
 * design; under this model the liveness check stays as strict as for every other protocol.
 *
 * <p>Episodes come one at a time, each of a kind from {@code options.faults()}, and touch at most a
 * minority of the members: crash and restart, pause and resume, a partition that isolates a
 * minority (both ways), a clock jump, a loss burst (messages only: memory-region writes are never
 * lost on a working link). Slow members and one-way cuts are not in the model (see the code). After an episode
 * the group gets {@code recoveryNanos} plus an exponential gap of mean {@code 1 / faultsPerSecond}
 * to notice the failure, install the smaller view and take the member back, before the next one.
 *
 * @param recoveryNanos          the quiet time after an episode that the protocol needs to be whole again
 * @param supervisorRestartNanos if positive, this long after an episode that may have made members shut
 *                               themselves down (pause, partition) the process supervisor restarts every
 *                               member that stopped ({@link Fault.Supervise}): what a deployment has
 *                               when the engine does not rejoin by itself; 0 when the engine rejoins by itself
 */
public record MinorityFaultModel(long recoveryNanos, long supervisorRestartNanos) {
    public MinorityFaultModel {
        if (recoveryNanos < 0) throw new IllegalArgumentException("recoveryNanos must be >= 0");
        if (supervisorRestartNanos < 0) throw new IllegalArgumentException("supervisorRestartNanos must be >= 0");
    }

    /** Schedules of the fault phase [0, duration) of {@code options}, from {@code random} alone. */
    public FaultSchedule generate(RandomGenerator random, SimOptions options, List<NodeId> members) {
        List<FaultKind> kinds = options.faults().stream().sorted().toList();
        int n = members.size();
        int minority = (n - 1) / 2;
        if (kinds.isEmpty() || options.faultsPerSecond() <= 0 || n < 2) return FaultSchedule.EMPTY;
        List<Fault.Scheduled> events = new ArrayList<>();
        long duration = options.durationNanos();
        double meanGap = SimTime.SECONDS / options.faultsPerSecond();
        long t = (long) (random.nextExponential() * meanGap);
        while (t < duration) {
            FaultKind kind = kinds.get(random.nextInt(kinds.size()));
            long end = t + Math.max(SimTime.MILLIS, (long) (random.nextExponential() * options.meanFaultNanos()));
            List<NodeId> order = shuffled(random, members);
            // A minority may be empty (two members): then only the faults that remove nobody apply.
            List<NodeId> out = order.subList(0, minority == 0 ? 0 : 1 + random.nextInt(minority));
            List<Fault> starts = new ArrayList<>();
            List<Fault> stops = new ArrayList<>();
            boolean mayShutDown = false;
            switch (kind) {
                case CRASH -> {
                    for (NodeId x : out) {
                        starts.add(new Fault.Crash(x));
                        stops.add(new Fault.Restart(x));
                    }
                }
                case PAUSE -> {
                    for (NodeId x : out) {
                        starts.add(new Fault.Pause(x));
                        stops.add(new Fault.Resume(x));
                    }
                    mayShutDown = true;
                }
                case PARTITION -> {
                    if (out.isEmpty()) break;
                    // Both ways: a one-way cut lets the deaf member's suspicions reach the others, who then
                    // remove healthy members on its word, so who is out is not a minority the model can name.
                    Set<Fault.Link> blocked = new TreeSet<>(Fault.Link.ORDER);
                    for (NodeId x : out) {
                        for (NodeId y : order.subList(out.size(), n)) {
                            blocked.add(new Fault.Link(x, y));
                            blocked.add(new Fault.Link(y, x));
                        }
                    }
                    starts.add(new Fault.Partition("isolate", blocked));
                    stops.add(new Fault.Heal());
                    mayShutDown = true;
                }
                // Slow members and links are left out: a slow member may suspect a healthy one first and get
                // it removed, then be removed itself, two members out from one episode (and the supervisor
                // could not tell which to restart). The generic schedules keep them.
                case SLOW -> { }
                case CLOCK -> starts.add(new Fault.ClockJump(order.getFirst(), random.nextLong(SimTime.MILLIS, 2 * SimTime.SECONDS)));
                case LOSS -> {
                    starts.add(new Fault.LossBurst(Math.round(random.nextDouble(0.2, 0.9) * 100) / 100.0));
                    stops.add(new Fault.LossEnd());
                }
                default -> throw new IllegalStateException("unhandled fault kind " + kind);
            }
            for (Fault f : starts) events.add(new Fault.Scheduled(t, f));
            if (end >= duration) break; // the heal that starts the liveness phase ends it
            for (Fault f : stops) events.add(new Fault.Scheduled(end, f));
            if (mayShutDown && supervisorRestartNanos > 0) {
                // The supervisor restarts whichever members stopped, known only when it runs: the episode's
                // minority, or a member of the majority removed on the isolated member's word (§5.2).
                long restart = end + supervisorRestartNanos;
                if (restart >= duration) break;
                events.add(new Fault.Scheduled(restart, new Fault.Supervise()));
                end = restart;
            }
            t = end + recoveryNanos + (long) (random.nextExponential() * meanGap);
        }
        return new FaultSchedule(events);
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
