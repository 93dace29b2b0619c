package io.tandem.jepsen.host;

import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The fixed names of everything the runner creates on the host, so that a crashed run's leftovers can
 * always be found and removed: network namespaces {@code <prefix>-n1..}, host-side veth ends
 * {@code <prefix>-v1..}, the bridge {@code <prefix>-br}, cgroups {@code /sys/fs/cgroup/<ctrl>/<prefix>/n1..},
 * and a state directory holding pid files, disk images and mount points.
 *
 * <p>Addresses come from {@code 198.18.0.0/15}, the range RFC 2544 reserves for benchmarking networks
 * (never routed): node {@code i} is {@code <subnet>.i}, the bridge (where the runner's clients live)
 * {@code <subnet>.254}.
 *
 * @param prefix   at most 8 characters, so that interface names stay within Linux's 15
 * @param subnet   the first three octets of a /24
 * @param stateDir pid files, disk images, data mounts and the lock file
 */
public record HostLayout(String prefix, String subnet, Path stateDir) {
    public static final int MAX_NODES = 32;

    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9]{0,7}");
    private static final Pattern SUBNET = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    // After the patterns: the constructor uses them.
    public static final HostLayout DEFAULT = new HostLayout("tjep", "198.18.77", Path.of("/var/tmp/tandem-jepsen"));

    public HostLayout {
        Objects.requireNonNull(stateDir, "stateDir");
        if (!PREFIX.matcher(prefix).matches()) throw new IllegalArgumentException("prefix must be 1-8 lower-case letters/digits, was '" + prefix + "'");
        var m = SUBNET.matcher(subnet);
        if (!m.matches()) throw new IllegalArgumentException("subnet must be three octets like 198.18.77, was '" + subnet + "'");
        for (int i = 1; i <= 3; i++) {
            if (Integer.parseInt(m.group(i)) > 255) throw new IllegalArgumentException("bad subnet " + subnet);
        }
    }

    /** The node's name, {@code n1} for index 1. */
    public static String nodeName(int index) {
        return "n" + index;
    }

    public String namespace(int index) {
        return prefix + "-n" + index;
    }

    public String hostVeth(int index) {
        return prefix + "-v" + index;
    }

    public String bridge() {
        return prefix + "-br";
    }

    public String nodeIp(int index) {
        if (index < 1 || index > MAX_NODES) throw new IllegalArgumentException("node index out of range: " + index);
        return subnet + "." + index;
    }

    public String bridgeIp() {
        return subnet + ".254";
    }

    /** The cgroup directory of a node under a cgroup-v1 controller such as {@code cpu} or {@code blkio}. */
    public Path cgroup(String controller, int index) {
        return cgroupRoot(controller).resolve(nodeName(index));
    }

    public Path cgroupRoot(String controller) {
        return Path.of("/sys/fs/cgroup", controller, prefix);
    }

    public Path pidDir() {
        return stateDir.resolve("pids");
    }

    public Path pidFile(int index) {
        return pidDir().resolve(nodeName(index) + ".pid");
    }

    public Path diskImage(int index) {
        return stateDir.resolve("disks").resolve(nodeName(index) + ".img");
    }

    /** Where the node's disk is mounted; its data directory lives inside. */
    public Path mountPoint(int index) {
        return stateDir.resolve("mnt").resolve(nodeName(index));
    }

    public Path lockFile() {
        return stateDir.resolve("lock");
    }
}
