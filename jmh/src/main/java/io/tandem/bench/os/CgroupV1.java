package io.tandem.bench.os;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One control group of one cgroup v1 controller, e.g. {@code cpu:/tandem-bench/n2}, which is the
 * directory {@code /sys/fs/cgroup/cpu/tandem-bench/n2}. The fail-slow benchmark puts a follower's
 * JVM into such a group and sets the group's limits ({@code cpu.cfs_quota_us},
 * {@code blkio.throttle.write_bps_device}); writing a pid to {@code cgroup.procs} moves all threads
 * of that process at once.
 *
 * @param hierarchy the controller's hierarchy mount, e.g. {@code /sys/fs/cgroup/cpu}
 * @param group     the group's path below the hierarchy root, without a leading slash; empty for the root group
 */
public record CgroupV1(Path hierarchy, String group) {
    /** Where cgroup v1 hierarchies are mounted on common Linux systems. */
    public static final Path DEFAULT_ROOT = Path.of("/sys/fs/cgroup");

    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final Pattern FILE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    public CgroupV1 {
        Objects.requireNonNull(hierarchy, "hierarchy");
        group = normalizeGroup(group);
    }

    /** The group {@code group} of {@code controller} below {@code root} (normally {@link #DEFAULT_ROOT}). */
    public static CgroupV1 of(Path root, String controller, String group) {
        if (controller == null || !SEGMENT.matcher(controller).matches()) {
            throw new IllegalArgumentException("not a cgroup controller name: '" + controller + "'");
        }
        return new CgroupV1(root.resolve(controller), group);
    }

    /**
     * Checks a group path and returns it without leading or trailing slashes: each segment must be a
     * plain name (letters, digits, '.', '_', '-', not starting with '.'), so a group can never
     * resolve outside its hierarchy.
     */
    public static String normalizeGroup(String group) {
        Objects.requireNonNull(group, "group");
        String g = group.strip();
        while (g.startsWith("/")) g = g.substring(1);
        while (g.endsWith("/")) g = g.substring(0, g.length() - 1);
        if (g.isEmpty()) return "";
        for (String segment : g.split("/", -1)) {
            if (!SEGMENT.matcher(segment).matches()) {
                throw new IllegalArgumentException("cgroup path '" + group + "' has an invalid segment '" + segment + "'");
            }
        }
        return g;
    }

    public boolean isRoot() {
        return group.isEmpty();
    }

    public Path directory() {
        return group.isEmpty() ? hierarchy : hierarchy.resolve(group);
    }

    /** A control file of this group, e.g. {@code cpu.cfs_quota_us}. */
    public Path file(String name) {
        if (name == null || !FILE.matcher(name).matches()) throw new IllegalArgumentException("not a cgroup file name: '" + name + "'");
        return directory().resolve(name);
    }

    /** A group below this one. */
    public CgroupV1 child(String name) {
        return new CgroupV1(hierarchy, group.isEmpty() ? name : group + "/" + name);
    }

    /** The root group of this group's hierarchy. */
    public CgroupV1 root() {
        return new CgroupV1(hierarchy, "");
    }

    public boolean exists() {
        return Files.isDirectory(directory());
    }

    /** Creates the group and any missing parents (cgroupfs fills in the control files). */
    public CgroupV1 create() {
        try {
            Files.createDirectories(directory());
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create cgroup " + directory() + ": " + e.getMessage(), e);
        }
    }

    public void write(String file, String value) {
        Path f = file(file);
        try {
            Files.writeString(f, value, StandardCharsets.US_ASCII, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write '" + value + "' to " + f + ": " + e.getMessage(), e);
        }
    }

    public String read(String file) {
        Path f = file(file);
        try {
            return Files.readString(f, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + f + ": " + e.getMessage(), e);
        }
    }

    /** Moves every thread of process {@code pid} into this group. */
    public void addProcess(long pid) {
        write("cgroup.procs", Long.toString(pid));
    }

    /** The processes in this group (not in its children). */
    public List<Long> processes() {
        return parsePidList(read("cgroup.procs"));
    }

    /** Removes the (empty) group; a group that is already gone is fine. */
    public void delete() {
        try {
            Files.deleteIfExists(directory());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove cgroup " + directory() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Removes this group and every group below it, children first, moving any process still in
     * them to the hierarchy's root group first. Used to clean up after a run that was killed.
     */
    public void deleteTree() {
        if (!exists()) return;
        try (DirectoryStream<Path> children = Files.newDirectoryStream(directory(), Files::isDirectory)) {
            for (Path child : children) child(child.getFileName().toString()).deleteTree();
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list cgroup " + directory() + ": " + e.getMessage(), e);
        }
        if (!isRoot()) {
            for (long pid : processes()) {
                try {
                    root().addProcess(pid);
                } catch (UncheckedIOException e) {
                    // The process exited between listing and moving it; the group empties itself.
                }
            }
            delete();
        }
    }

    /**
     * Puts process {@code pid} into this group and returns a handle that moves it back to the group
     * it was in before (read from {@code /proc/PID/cgroup}) when closed.
     */
    public Placement place(long pid, Path procRoot) {
        String controller = hierarchy.getFileName().toString();
        String before = groupOf(procRoot, pid, controller);
        addProcess(pid);
        return new Placement(pid, new CgroupV1(hierarchy, before), this);
    }

    /** A process placed in a group; {@link #close()} moves it back where it was (a process that exited is fine). */
    public record Placement(long pid, CgroupV1 previous, CgroupV1 current) implements AutoCloseable {
        @Override
        public void close() {
            try {
                previous.addProcess(pid);
            } catch (UncheckedIOException e) {
                if (Files.exists(Path.of("/proc", Long.toString(pid)))) throw e;
            }
        }
    }

    /** The group of {@code pid} in {@code controller}'s hierarchy, from {@code procRoot/PID/cgroup}. */
    public static String groupOf(Path procRoot, long pid, String controller) {
        Path f = procRoot.resolve(Long.toString(pid)).resolve("cgroup");
        String text;
        try {
            text = Files.readString(f, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + f + ": " + e.getMessage(), e);
        }
        String g = parseProcCgroup(text).get(controller);
        if (g == null) throw new IllegalStateException("process " + pid + " is in no '" + controller + "' cgroup v1 hierarchy (" + f + ")");
        return g;
    }

    /**
     * Parses the content of {@code /proc/PID/cgroup}: lines {@code id:controllers:path}. Returns
     * each controller (a line listing {@code cpu,cpuacct} yields both; named hierarchies keep their
     * {@code name=...} form) mapped to the group path without its leading slash. The cgroup v2 line
     * ({@code 0::/path}) is returned under the empty key.
     */
    public static Map<String, String> parseProcCgroup(String text) {
        Map<String, String> groups = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank()) continue;
            int first = line.indexOf(':');
            int second = first < 0 ? -1 : line.indexOf(':', first + 1);
            if (first < 0 || second < 0) throw new IllegalArgumentException("not a /proc/PID/cgroup line: '" + line + "'");
            String controllers = line.substring(first + 1, second);
            String path = normalizeGroup(line.substring(second + 1));
            if (controllers.isEmpty()) {
                groups.put("", path);
            } else {
                for (String c : controllers.split(",")) groups.put(c, path);
            }
        }
        return groups;
    }

    /** Parses a {@code cgroup.procs} or {@code tasks} file: one pid per line. */
    public static List<Long> parsePidList(String text) {
        List<Long> pids = new ArrayList<>();
        for (String line : text.split("\n")) {
            String l = line.strip();
            if (!l.isEmpty()) pids.add(Long.parseLong(l));
        }
        return pids;
    }

    /** A block device number, written {@code MAJOR:MINOR} as in {@code /sys/class/block/DEV/dev}. */
    public record DeviceNumber(int major, int minor) {
        public DeviceNumber {
            if (major < 0 || minor < 0) throw new IllegalArgumentException("device numbers are non-negative: " + major + ":" + minor);
        }

        public static DeviceNumber parse(String text) {
            String t = text.strip();
            int colon = t.indexOf(':');
            if (colon <= 0 || colon == t.length() - 1) throw new IllegalArgumentException("not a MAJOR:MINOR device number: '" + text + "'");
            try {
                return new DeviceNumber(Integer.parseInt(t.substring(0, colon)), Integer.parseInt(t.substring(colon + 1)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a MAJOR:MINOR device number: '" + text + "'", e);
            }
        }

        @Override
        public String toString() {
            return major + ":" + minor;
        }
    }

    /** The value of a {@code blkio.throttle.*_bps_device} file: the device and its limit in bytes per second. */
    public static String throttleLine(DeviceNumber device, long bytesPerSecond) {
        if (bytesPerSecond <= 0) throw new IllegalArgumentException("a throttle must be positive, was " + bytesPerSecond);
        return device + " " + bytesPerSecond;
    }

    /**
     * The {@code (cfs_quota_us, cfs_period_us)} pair giving a process {@code percentOfOneCore} of
     * one core per {@code periodMicros}: 5 % with a 1 s period is 50 ms of CPU per second, the
     * DepFast thesis' setting.
     */
    public static long cfsQuotaMicros(double percentOfOneCore, long periodMicros) {
        if (!(percentOfOneCore > 0 && percentOfOneCore <= 100 * 1024)) throw new IllegalArgumentException("CPU share must be > 0 %, was " + percentOfOneCore);
        // The kernel accepts periods of 1 ms to 1 s and quotas of at least 1 ms.
        if (periodMicros < 1_000 || periodMicros > 1_000_000) throw new IllegalArgumentException("cfs period must be 1000..1000000 us, was " + periodMicros);
        long quota = Math.round(periodMicros * percentOfOneCore / 100.0);
        if (quota < 1_000) throw new IllegalArgumentException(percentOfOneCore + " % of a " + periodMicros + " us period is below the kernel's 1000 us minimum quota");
        return quota;
    }
}
