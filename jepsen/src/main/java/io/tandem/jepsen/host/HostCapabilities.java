package io.tandem.jepsen.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What this host lets the runner do, probed before a run (verification.md §5.9), so a run states which
 * faults it really injected and a test can skip with a reason instead of failing on a machine that
 * cannot host the cluster.
 *
 * @param root        the runner is uid 0
 * @param netns       {@code ip netns add} works (checked with a throwaway namespace)
 * @param iptables    {@code iptables} works inside a namespace
 * @param cgroupCpu   the cgroup-v1 {@code cpu} hierarchy is writable (slow CPU)
 * @param cgroupBlkio the cgroup-v1 {@code blkio} hierarchy is writable (slow disk)
 * @param loopDisks   loop devices and {@code mkfs.ext4} are there (per-node disks, slow disk)
 */
public record HostCapabilities(boolean root, boolean netns, boolean iptables, boolean cgroupCpu, boolean cgroupBlkio, boolean loopDisks) {

    /** Probes the host; leaves nothing behind. */
    public static HostCapabilities probe(HostLayout layout, Shell shell) {
        boolean root = uid() == 0;
        if (!root) return new HostCapabilities(false, false, false, false, false, false);
        String ns = layout.prefix() + "-probe";
        shell.run("ip", "netns", "del", ns);
        boolean netns = shell.run("ip", "netns", "add", ns).ok();
        boolean iptables = false;
        if (netns) {
            iptables = shell.run("ip", "netns", "exec", ns, "iptables", "-w", "-L", "INPUT", "-n").ok();
            shell.run("ip", "netns", "del", ns);
        }
        return new HostCapabilities(true, netns, iptables, Cgroups.available("cpu"), Cgroups.available("blkio"), LoopDisk.available(shell));
    }

    /** True if a cluster can run here at all (nodes in namespaces, partitions with iptables). */
    public boolean canRunCluster() {
        return root && netns && iptables;
    }

    /** Why a cluster cannot run here, or the empty string. */
    public String whyNot() {
        List<String> missing = new ArrayList<>();
        if (!root) missing.add("not running as root (uid " + uid() + ")");
        if (root && !netns) missing.add("'ip netns add' does not work (no iproute2 or no network namespaces)");
        if (root && netns && !iptables) missing.add("'iptables' does not work inside a network namespace (install the iptables package)");
        return String.join("; ", missing);
    }

    /** The runner's user id, from /proc (-1 if unknown). */
    public static long uid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) return Long.parseLong(line.substring(4).strip().split("\\s+")[0]);
            }
        } catch (IOException | NumberFormatException e) {
            // fall through
        }
        return -1;
    }
}
