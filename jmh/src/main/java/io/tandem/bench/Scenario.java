package io.tandem.bench;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One benchmark scenario: a cluster size, a kind of slowness and how many followers get it. Written
 * {@code n<size>-<kind>[-x<count>]}: {@code n3-healthy}, {@code n3-cpu}, {@code n5-net-x2}.
 */
public record Scenario(int clusterSize, Slowness slowness, int slowFollowers) {
    private static final Pattern ID = Pattern.compile("n(\\d+)-([a-z]+)(?:-x(\\d+))?");

    public Scenario {
        Objects.requireNonNull(slowness, "slowness");
        if (clusterSize < 1 || clusterSize > 9) throw new IllegalArgumentException("cluster size must be 1..9, was " + clusterSize);
        if (slowness instanceof Slowness.None) {
            if (slowFollowers != 0) throw new IllegalArgumentException("a healthy scenario has no slow followers");
        } else if (slowFollowers < 1 || slowFollowers > clusterSize - 1) {
            throw new IllegalArgumentException("a " + clusterSize + "-node cluster has 1.." + (clusterSize - 1) + " followers to slow down, not " + slowFollowers);
        }
    }

    public static Scenario healthy(int clusterSize) {
        return new Scenario(clusterSize, new Slowness.None(), 0);
    }

    /** Parses an id, taking each kind's parameters from {@code kinds}. */
    public static Scenario parse(String id, SlownessKinds kinds) {
        Matcher m = ID.matcher(id.strip());
        if (!m.matches()) throw new IllegalArgumentException("scenario '" + id + "' is not n<size>-<kind>[-x<count>], e.g. n3-cpu or n5-net-x2");
        int size = Integer.parseInt(m.group(1));
        Slowness s = kinds.byName(m.group(2));
        int count = m.group(3) != null ? Integer.parseInt(m.group(3)) : s instanceof Slowness.None ? 0 : 1;
        return new Scenario(size, s, count);
    }

    public boolean isHealthy() {
        return slowness instanceof Slowness.None;
    }

    /** The id this scenario parses from. */
    public String id() {
        return "n" + clusterSize + "-" + slowness.kind() + (slowFollowers > 1 ? "-x" + slowFollowers : "");
    }

    /** Whether a majority quorum can still be formed by healthy nodes, i.e. whether the fail-slow target applies. */
    public boolean toleratedByDesign() {
        return slowFollowers <= (clusterSize - 1) / 2;
    }

    public String describe() {
        if (isHealthy()) return clusterSize + " nodes, healthy";
        return clusterSize + " nodes, " + (slowFollowers == 1 ? "1 slow follower" : slowFollowers + " slow followers") + ": " + slowness.describe();
    }

    /** The parameters of each kind of slowness, as configured for this invocation. */
    public record SlownessKinds(Slowness.CpuQuota cpu, Slowness.DiskThrottle disk, Slowness.NetworkDelay net, Slowness.Pauses pause) {
        public Slowness byName(String kind) {
            return switch (kind) {
                case "healthy", "none" -> new Slowness.None();
                case "cpu" -> cpu;
                case "disk" -> disk;
                case "net" -> net;
                case "pause" -> pause;
                case "stop" -> new Slowness.Stopped();
                default -> throw new IllegalArgumentException("unknown slowness '" + kind + "'; known: healthy, stop, cpu, disk, net, pause");
            };
        }
    }
}
