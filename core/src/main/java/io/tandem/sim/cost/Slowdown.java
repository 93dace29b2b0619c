package io.tandem.sim.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A fail-slow fault of the cost model, as a change of its parameters at run time (DepFast, spec §1.2):
 * which nodes ({@code follower}, {@code follower*2}, {@code leader}, or a node {@code n2}) and what
 * happens to them, one or several at once. Text form, as {@code --slow} takes it:
 *
 * <pre>
 *   follower:cpu=5%            CPU quota 5 % of one core per 1 s period (cfs_quota_us=50000, cfs_period_us=1000000)
 *   follower:cpu=20%/100ms     20 % per 100 ms period
 *   follower:disk=512KiB/s     disk write bandwidth throttled (blkio.throttle.write_bps_device)
 *   follower:disk+=5ms         every flush 5 ms slower
 *   follower:net=+400ms        every message the node sends held back 400 ms (tc netem delay on its egress)
 *   follower:pause=500ms/1s    stopped 500 ms of every 1 s (SIGSTOP / SIGCONT cycle)
 *   follower:stop              stopped for good (SIGSTOP: the fail-stop reference)
 *   follower*2:cpu=5%,net=+400ms   two followers, both faults at once
 * </pre>
 *
 * @param target which nodes: {@code follower}, {@code leader} or a node name
 * @param count  how many of them (followers are taken from the end of the member list, never the leader)
 * @param faults what is done to each of them
 */
public record Slowdown(String target, int count, List<Fault> faults) {
    /** One change of the model's parameters. */
    public sealed interface Fault {
        String format();

        /** A CPU quota: {@code percent} of one core per {@code periodNanos}. */
        record Cpu(double percent, long periodNanos) implements Fault {
            public Cpu {
                if (!(percent > 0 && percent <= 100 * 64)) throw new IllegalArgumentException("cpu share must be in (0, 6400] %, was " + percent);
                if (periodNanos <= 0) throw new IllegalArgumentException("cpu period must be > 0");
            }

            @Override
            public String format() {
                return "cpu=" + num(percent) + "%" + (periodNanos == 1_000_000_000L ? "" : "/" + Units.formatNanos(periodNanos));
            }
        }

        /** Disk write bandwidth, bytes per second. */
        record Disk(double bytesPerSecond) implements Fault {
            public Disk {
                if (!(bytesPerSecond > 0)) throw new IllegalArgumentException("disk bandwidth must be > 0");
            }

            @Override
            public String format() {
                return "disk=" + Units.formatBytes((long) bytesPerSecond) + "/s";
            }
        }

        /** Extra latency on every flush. */
        record DiskLatency(long nanos) implements Fault {
            @Override
            public String format() {
                return "disk+=" + Units.formatNanos(nanos);
            }
        }

        /** Every message the node sends is held back this long. */
        record Net(long delayNanos) implements Fault {
            @Override
            public String format() {
                return "net=+" + Units.formatNanos(delayNanos);
            }
        }

        /** Stopped {@code pausedNanos} of every {@code periodNanos}. */
        record Pause(long pausedNanos, long periodNanos) implements Fault {
            public Pause {
                if (pausedNanos <= 0 || periodNanos <= pausedNanos) throw new IllegalArgumentException("pause needs 0 < paused < period");
            }

            @Override
            public String format() {
                return "pause=" + Units.formatNanos(pausedNanos) + "/" + Units.formatNanos(periodNanos);
            }
        }

        /** Stopped for good. */
        record Stop() implements Fault {
            @Override
            public String format() {
                return "stop";
            }
        }
    }

    public Slowdown {
        if (!target.equals("follower") && !target.equals("leader") && !target.matches("[A-Za-z0-9_-]+")) throw new IllegalArgumentException("bad target " + target);
        if (count < 1) throw new IllegalArgumentException("count must be >= 1");
        if (faults.isEmpty()) throw new IllegalArgumentException("a slowdown needs at least one fault");
        faults = List.copyOf(faults);
    }

    public static Slowdown parse(String text) {
        int colon = text.indexOf(':');
        if (colon <= 0) throw new IllegalArgumentException("slowdown '" + text + "': expected <target>:<fault>[,<fault>...], e.g. follower:cpu=5%");
        String who = text.substring(0, colon).trim();
        int count = 1;
        int star = who.indexOf('*');
        if (star > 0) {
            count = Integer.parseInt(who.substring(star + 1));
            who = who.substring(0, star);
        }
        List<Fault> faults = new ArrayList<>();
        for (String f : text.substring(colon + 1).split(",")) faults.add(parseFault(f.trim(), text));
        return new Slowdown(who, count, faults);
    }

    private static Fault parseFault(String f, String whole) {
        try {
            if (f.equals("stop")) return new Fault.Stop();
            if (f.startsWith("cpu=")) {
                String v = f.substring(4);
                long period = 1_000_000_000L;
                int slash = v.indexOf('/');
                if (slash > 0) {
                    period = Units.parseNanos(v.substring(slash + 1));
                    v = v.substring(0, slash);
                }
                if (!v.endsWith("%")) throw new IllegalArgumentException("cpu share needs a %");
                return new Fault.Cpu(Double.parseDouble(v.substring(0, v.length() - 1)), period);
            }
            if (f.startsWith("disk+=")) return new Fault.DiskLatency(Units.parseNanos(f.substring(6)));
            if (f.startsWith("disk=")) {
                String v = f.substring(5);
                if (!v.endsWith("/s")) throw new IllegalArgumentException("disk bandwidth needs /s");
                return new Fault.Disk(Units.parseBytes(v.substring(0, v.length() - 2)));
            }
            if (f.startsWith("net=+")) return new Fault.Net(Units.parseNanos(f.substring(5)));
            if (f.startsWith("pause=")) {
                String[] p = f.substring(6).split("/");
                if (p.length != 2) throw new IllegalArgumentException("pause=<stopped>/<period>");
                return new Fault.Pause(Units.parseNanos(p[0]), Units.parseNanos(p[1]));
            }
            throw new IllegalArgumentException("unknown fault '" + f + "'");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("slowdown '" + whole + "': " + e.getMessage()
                    + " (faults: cpu=5%[/1s], disk=512KiB/s, disk+=5ms, net=+400ms, pause=500ms/1s, stop)", e);
        }
    }

    public String format() {
        StringBuilder b = new StringBuilder(target);
        if (count > 1) b.append('*').append(count);
        b.append(':');
        for (int i = 0; i < faults.size(); i++) b.append(i == 0 ? "" : ",").append(faults.get(i).format());
        return b.toString();
    }

    /**
     * Applies the faults to {@code node} of {@code model} now; returns what undoes them. A pause
     * cycle keeps running on the model's scheduler until undone.
     */
    public Runnable apply(CostModel model, String node) {
        List<Runnable> undo = new ArrayList<>();
        NodeCpu cpu = model.cpu(node);
        for (Fault f : faults) {
            switch (f) {
                case Fault.Cpu c -> {
                    cpu.setQuota(Math.round(c.periodNanos() * c.percent() / 100.0), c.periodNanos());
                    undo.add(() -> cpu.setQuota(0, 0));
                }
                case Fault.Disk d -> {
                    model.disk(node).setBandwidth(d.bytesPerSecond());
                    undo.add(() -> model.disk(node).setBandwidth(0));
                }
                case Fault.DiskLatency d -> {
                    model.disk(node).setExtraLatency(d.nanos());
                    undo.add(() -> model.disk(node).setExtraLatency(0));
                }
                case Fault.Net n -> {
                    model.network().setEgressDelay(node, n.delayNanos());
                    undo.add(() -> model.network().setEgressDelay(node, 0));
                }
                case Fault.Pause p -> {
                    boolean[] active = {true};
                    cycle(model.scheduler(), cpu, p, active);
                    undo.add(() -> {
                        active[0] = false;
                        cpu.setPaused(false);
                    });
                }
                case Fault.Stop s -> {
                    cpu.setPaused(true);
                    undo.add(() -> cpu.setPaused(false));
                }
            }
        }
        return () -> undo.forEach(Runnable::run);
    }

    private static void cycle(Scheduler scheduler, NodeCpu cpu, Fault.Pause p, boolean[] active) {
        if (!active[0]) return;
        long start = scheduler.now();
        cpu.setPaused(true);
        scheduler.at(start + p.pausedNanos(), () -> {
            if (active[0]) cpu.setPaused(false);
        });
        scheduler.at(start + p.periodNanos(), () -> cycle(scheduler, cpu, p, active));
    }

    private static String num(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%s", v);
    }
}
