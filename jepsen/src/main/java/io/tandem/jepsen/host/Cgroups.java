package io.tandem.jepsen.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Per-node cgroup-v1 groups for the slow-CPU ({@code cpu} quota) and slow-disk ({@code blkio}
 * throttle) faults. A node's server joins its groups before its JVM starts (see
 * {@link #joinCommandPrefix}), so a restarted node is throttled from its first instruction when the
 * fault is still on. Hosts without the v1 {@code cpu}/{@code blkio} hierarchies (pure cgroup v2) do not
 * get these faults; {@link #available(String)} says so and the run records it.
 */
public final class Cgroups {
    /** The cgroup-v1 controllers the runner uses. */
    public static final List<String> CONTROLLERS = List.of("cpu", "blkio");

    /** CFS period for the CPU quota. */
    public static final long CPU_PERIOD_US = 100_000;

    private final HostLayout layout;

    public Cgroups(HostLayout layout) {
        this.layout = layout;
    }

    /** True if the v1 hierarchy of {@code controller} is mounted and writable here. */
    public static boolean available(String controller) {
        Path root = Path.of("/sys/fs/cgroup", controller);
        return Files.isWritable(root.resolve("cgroup.procs"));
    }

    /** Creates the node's group under every available controller. */
    public void create(int node) {
        for (String c : CONTROLLERS) {
            if (!available(c)) continue;
            try {
                Files.createDirectories(layout.cgroup(c, node));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create cgroup " + layout.cgroup(c, node), e);
            }
        }
    }

    /**
     * A {@code sh -c} script that moves the shell into the node's groups and then {@code exec}s its
     * arguments, so the server process is in its groups before it starts.
     */
    public String joinCommandPrefix(int node) {
        StringBuilder s = new StringBuilder();
        for (String c : CONTROLLERS) {
            if (!available(c)) continue;
            s.append("echo $$ > '").append(layout.cgroup(c, node).resolve("cgroup.procs")).append("' && ");
        }
        return s.append("exec \"$@\"").toString();
    }

    /** Limits the node to {@code percentOfOneCpu} percent of one CPU. */
    public void limitCpu(int node, int percentOfOneCpu) {
        Path g = layout.cgroup("cpu", node);
        write(g.resolve("cpu.cfs_period_us"), Long.toString(CPU_PERIOD_US));
        write(g.resolve("cpu.cfs_quota_us"), Long.toString(CPU_PERIOD_US * percentOfOneCpu / 100));
    }

    public void unlimitCpu(int node) {
        Path g = layout.cgroup("cpu", node);
        if (Files.isDirectory(g)) write(g.resolve("cpu.cfs_quota_us"), "-1");
    }

    /**
     * Throttles the node's reads and writes on the block device {@code majorMinor} ("7:0") to
     * {@code bytesPerSecond} and {@code iops}. The write IOPS limit is what slows an fsync-heavy log.
     */
    public void throttleDisk(int node, String majorMinor, long bytesPerSecond, long iops) {
        Path g = layout.cgroup("blkio", node);
        write(g.resolve("blkio.throttle.write_bps_device"), majorMinor + " " + bytesPerSecond);
        write(g.resolve("blkio.throttle.read_bps_device"), majorMinor + " " + bytesPerSecond);
        write(g.resolve("blkio.throttle.write_iops_device"), majorMinor + " " + iops);
        write(g.resolve("blkio.throttle.read_iops_device"), majorMinor + " " + iops);
    }

    /** Removes the throttle (a limit of 0 means none). */
    public void unthrottleDisk(int node, String majorMinor) {
        Path g = layout.cgroup("blkio", node);
        if (!Files.isDirectory(g)) return;
        for (String f : List.of("write_bps_device", "read_bps_device", "write_iops_device", "read_iops_device")) {
            write(g.resolve("blkio.throttle." + f), majorMinor + " 0");
        }
    }

    private static void write(Path file, String value) {
        try {
            Files.writeString(file, value + "\n", StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write '" + value + "' to " + file, e);
        }
    }
}
