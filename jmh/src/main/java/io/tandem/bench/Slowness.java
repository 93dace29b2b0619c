package io.tandem.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How a follower is made slow, one per fault the DepFast thesis injects (specs/depfast-raft.md
 * §1.2, §7.3), each applied from outside the server except the network delay, which this kernel
 * cannot do with netem and which therefore goes through the server's fault-injecting transport.
 */
public sealed interface Slowness {
    /** The short name used in scenario ids and file names. */
    String kind();

    /** A human description with the parameters, for tables. */
    String describe();

    /** No fault: the reference run. */
    record None() implements Slowness {
        @Override
        public String kind() {
            return "healthy";
        }

        @Override
        public String describe() {
            return "healthy";
        }
    }

    /**
     * The follower's JVM in a cgroup v1 {@code cpu} group with {@code cfs_quota_us/cfs_period_us} =
     * {@code percent}% of one core. With the thesis' 1 s period the process runs for 50 ms and is
     * then frozen for 950 ms, every second.
     */
    record CpuQuota(double percent, Duration period) implements Slowness {
        public CpuQuota {
            if (!(percent > 0)) throw new IllegalArgumentException("CPU quota must be > 0 %");
            Objects.requireNonNull(period, "period");
        }

        @Override
        public String kind() {
            return "cpu";
        }

        @Override
        public String describe() {
            return String.format(Locale.ROOT, "CPU quota %s%% of one core per %d ms", trim(percent), period.toMillis());
        }
    }

    /** The follower's JVM in a cgroup v1 {@code blkio} group throttling reads and writes to its data disk's loop device. */
    record DiskThrottle(long bytesPerSecond) implements Slowness {
        public DiskThrottle {
            if (bytesPerSecond <= 0) throw new IllegalArgumentException("disk throttle must be > 0 B/s");
        }

        @Override
        public String kind() {
            return "disk";
        }

        @Override
        public String describe() {
            return bytesPerSecond % 1024 == 0 ? "disk " + bytesPerSecond / 1024 + " KiB/s" : "disk " + bytesPerSecond + " B/s";
        }
    }

    /**
     * Every message the follower sends is held back {@code delay} by its fault-injecting transport
     * (the admin request's slow-node plan): egress only, like {@code tc netem} on the follower's
     * interface in the thesis.
     */
    record NetworkDelay(Duration delay) implements Slowness {
        public NetworkDelay {
            if (delay.isNegative() || delay.isZero()) throw new IllegalArgumentException("network delay must be > 0");
        }

        @Override
        public String kind() {
            return "net";
        }

        @Override
        public String describe() {
            return "network +" + delay.toMillis() + " ms egress";
        }
    }

    /**
     * The follower's JVM is stopped with SIGSTOP for the whole window (SIGCONT when it ends): a
     * follower that is not slow but gone, the fail-stop reference a fail-slow follower should cost
     * no more than. With one follower fewer to choose from, the commit quorum always waits for the
     * same remaining member, which on a noisy machine alone costs latency (DepFast pattern C).
     */
    record Stopped() implements Slowness {
        @Override
        public String kind() {
            return "stop";
        }

        @Override
        public String describe() {
            return "stopped (fail-stop reference)";
        }
    }

    /** The follower's JVM is stopped with SIGSTOP for {@code stopped} out of every {@code period}, then SIGCONT. */
    record Pauses(Duration stopped, Duration period) implements Slowness {
        public Pauses {
            if (stopped.isNegative() || stopped.isZero()) throw new IllegalArgumentException("pause length must be > 0");
            if (period.compareTo(stopped) <= 0) throw new IllegalArgumentException("pause period must be longer than the pause");
        }

        @Override
        public String kind() {
            return "pause";
        }

        @Override
        public String describe() {
            return "SIGSTOP " + stopped.toMillis() + " ms every " + period.toMillis() + " ms";
        }
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
