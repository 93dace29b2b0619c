package io.tandem.bench.peers;

import io.tandem.bench.Slowness;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The slowdown scenarios: on a running, loaded cluster, a healthy window, then one follower slow,
 * healthy again, then the leader slow, then healthy once more. The fault kinds are those of the
 * fail-slow benchmark ({@link Slowness}): a CPU quota (cgroup v1), SIGSTOP/SIGCONT pauses, and a
 * transport delay, which only Tandem's servers offer (their fault-injecting transport, set through
 * the KV admin request); the other systems have no such hook and this kernel has no netem.
 */
final class Slowdown {
    /** A fault kind of the slowdown scenarios. */
    enum Kind {
        cpu, pause, net
    }

    /** Which replica a phase slows: none, a follower, or the leader (chosen from the role files when the phase starts). */
    enum Target {
        none, follower, leader
    }

    /** One phase of a scenario: load seconds {@code (from, to]}. The warm-up phase is not measured. */
    record Phase(String name, int from, int to, Target target) {
        boolean warmup() {
            return name.equals("warmup");
        }

        int seconds() {
            return to - from;
        }
    }

    private Slowdown() {}

    /** Why {@code kind} cannot be applied to {@code system}, or null if it can. */
    static String notApplicable(Kind kind, SystemCatalog.SystemSpec system) {
        if (kind == Kind.net && !system.isTandem()) {
            return "transport delay needs a fault hook in the system's transport; only Tandem's servers have one (no netem on this kernel)";
        }
        if (kind == Kind.net && system.replicas() == 1) {
            return "the transport delay holds back peer messages only, and a single replica sends none";
        }
        return null;
    }

    /** {@link #phases(int, int, int, int, Set)} with both the follower and the leader window. */
    static List<Phase> phases(int warmup, int healthy, int slow, int replicas) {
        return phases(warmup, healthy, slow, replicas, EnumSet.of(Target.follower, Target.leader));
    }

    /**
     * The phases of one scenario: warm-up, healthy, then for each requested target (follower first)
     * a slow window followed by a healthy one. A single-replica system has no follower, so it gets
     * no follower window; with nothing left to slow the plan has no slow phase at all.
     */
    static List<Phase> phases(int warmup, int healthy, int slow, int replicas, Set<Target> targets) {
        if (warmup < 0 || healthy < 1 || slow < 1) throw new IllegalArgumentException("slowdown phases need warm-up >= 0, healthy and slow windows >= 1 s");
        List<Phase> out = new ArrayList<>();
        int t = 0;
        if (warmup > 0) out.add(new Phase("warmup", t, t += warmup, Target.none));
        out.add(new Phase("healthy", t, t += healthy, Target.none));
        if (replicas > 1 && targets.contains(Target.follower)) {
            out.add(new Phase("follower-slow", t, t += slow, Target.follower));
            out.add(new Phase("healthy", t, t += healthy, Target.none));
        }
        if (targets.contains(Target.leader)) {
            out.add(new Phase("leader-slow", t, t += slow, Target.leader));
            out.add(new Phase("healthy", t, t += healthy, Target.none));
        }
        return out;
    }

    /** Whether a plan slows anything. */
    static boolean slowsAnything(List<Phase> phases) {
        return phases.stream().anyMatch(p -> p.target() != Target.none);
    }

    /** The healthy phases right before and after the slow phase at {@code index}. */
    static List<Phase> neighbours(List<Phase> phases, int index) {
        List<Phase> n = new ArrayList<>();
        if (index > 0 && phases.get(index - 1).target() == Target.none && !phases.get(index - 1).warmup()) n.add(phases.get(index - 1));
        if (index + 1 < phases.size() && phases.get(index + 1).target() == Target.none) n.add(phases.get(index + 1));
        return n;
    }

    /** A short description of a fault for tables. */
    static String describe(Slowness s) {
        return switch (s) {
            case Slowness.CpuQuota c -> String.format(Locale.ROOT, "cgroup cpu quota %s%% of a core per %d ms", trim(c.percent()), c.period().toMillis());
            default -> s.describe();
        };
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
