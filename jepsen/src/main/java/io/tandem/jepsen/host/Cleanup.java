package io.tandem.jepsen.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Removes everything a run creates on the host, found by the fixed names of {@link HostLayout}, not by
 * memory of what this process did: so the same code cleans up after this run (also from a shutdown
 * hook), and after a previous run that crashed or was killed. Idempotent; each step carries on when
 * an earlier one failed, and the problems are returned rather than thrown.
 *
 * <p>Order matters: processes first (SIGCONT, then SIGKILL: a stopped task dies on SIGKILL, but only
 * processes that are gone release their mounts and cgroups), then mounts and loop devices, then the
 * links (a veth end in the root namespace outlives its deleted namespace for a while, so it is
 * deleted explicitly), the bridge, the namespaces (which takes their iptables rules with them), and
 * the cgroups last (they must be empty).
 */
public final class Cleanup {
    private final HostLayout layout;
    private final Shell shell;

    public Cleanup(HostLayout layout, Shell shell) {
        this.layout = layout;
        this.shell = shell;
    }

    /** Removes every leftover; returns what could not be removed (empty when the host is clean). */
    public List<String> run() {
        List<String> problems = new ArrayList<>();
        Set<Long> pids = new LinkedHashSet<>();
        pids.addAll(pidsFromPidFiles());
        for (String ns : namespaces()) pids.addAll(pidsOf(shell.run("ip", "netns", "pids", ns).out()));
        for (String controller : Cgroups.CONTROLLERS) pids.addAll(pidsInCgroups(controller));
        pids.remove(ProcessHandle.current().pid());
        killAll(pids, problems);

        for (Path mount : ourMounts()) {
            if (!shell.run("umount", mount.toString()).ok() && !shell.run("umount", "-l", mount.toString()).ok()) {
                problems.add("cannot unmount " + mount);
            }
        }
        for (String loop : ourLoopDevices()) {
            if (!shell.run("losetup", "-d", loop).ok()) problems.add("cannot detach " + loop);
        }
        for (String link : ourLinks()) {
            if (!shell.run("ip", "link", "del", link).ok() && linkExists(link)) problems.add("cannot delete link " + link);
        }
        for (String ns : namespaces()) {
            if (!shell.run("ip", "netns", "del", ns).ok()) problems.add("cannot delete namespace " + ns);
        }
        for (String controller : Cgroups.CONTROLLERS) removeCgroups(controller, problems);
        deleteQuietly(layout.pidDir());
        deleteQuietly(layout.stateDir().resolve("disks"));
        deleteQuietly(layout.stateDir().resolve("mnt"));
        return problems;
    }

    /** Our network namespaces, by name. */
    public List<String> namespaces() {
        List<String> out = new ArrayList<>();
        for (String line : shell.run("ip", "netns", "list").out().split("\n")) {
            String name = line.strip().split("\\s+")[0];
            if (name.startsWith(layout.prefix() + "-")) out.add(name);
        }
        return out;
    }

    private List<Long> pidsFromPidFiles() {
        List<Long> out = new ArrayList<>();
        if (!Files.isDirectory(layout.pidDir())) return out;
        try (Stream<Path> files = Files.list(layout.pidDir())) {
            for (Path f : files.toList()) {
                try {
                    long pid = Long.parseLong(Files.readString(f, StandardCharsets.US_ASCII).strip());
                    // A pid file outlives its process and pids are reused: only a process whose command line
                    // names our state directory is ours.
                    if (commandLine(pid).map(c -> c.contains(layout.stateDir().toString())).orElse(false)) out.add(pid);
                } catch (IOException | NumberFormatException e) {
                    // an unreadable or half-written pid file names no process
                }
            }
        } catch (IOException e) {
            // nothing to read
        }
        return out;
    }

    private List<Long> pidsInCgroups(String controller) {
        List<Long> out = new ArrayList<>();
        Path root = layout.cgroupRoot(controller);
        if (!Files.isDirectory(root)) return out;
        try (Stream<Path> dirs = Files.walk(root)) {
            for (Path d : dirs.filter(Files::isDirectory).toList()) {
                try {
                    out.addAll(pidsOf(Files.readString(d.resolve("cgroup.procs"))));
                } catch (IOException e) {
                    // a cgroup that vanished meanwhile
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            // nothing to read, or the groups went away while we looked
        }
        return out;
    }

    private void killAll(Set<Long> pids, List<String> problems) {
        if (pids.isEmpty()) return;
        for (long pid : pids) {
            shell.run("kill", "-CONT", Long.toString(pid));
            shell.run("kill", "-KILL", Long.toString(pid));
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        for (long pid : pids) {
            Optional<ProcessHandle> h = ProcessHandle.of(pid);
            if (h.isEmpty()) continue;
            try {
                h.get().onExit().get(Math.max(1, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                if (h.get().isAlive()) problems.add("process " + pid + " did not die after SIGKILL");
            }
        }
    }

    private List<Path> ourMounts() {
        List<Path> out = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
                String[] parts = line.split(" ");
                if (parts.length < 2) continue;
                String mountPoint = parts[1].replace("\\040", " ");
                if (mountPoint.startsWith(layout.stateDir().toString() + "/")) out.add(Path.of(mountPoint));
            }
        } catch (IOException e) {
            // no /proc/mounts: nothing we could have mounted either
        }
        out.sort(Comparator.comparing(Path::toString).reversed()); // nested mounts first
        return out;
    }

    private List<String> ourLoopDevices() {
        List<String> out = new ArrayList<>();
        Shell.Result r = shell.run("losetup", "--list", "--noheadings", "--output", "NAME,BACK-FILE");
        if (!r.ok()) return out;
        for (String line : r.out().split("\n")) {
            String[] parts = line.strip().split("\\s+", 2);
            if (parts.length == 2 && parts[1].startsWith(layout.stateDir().toString() + "/")) out.add(parts[0]);
        }
        return out;
    }

    private List<String> ourLinks() {
        List<String> out = new ArrayList<>();
        for (String line : shell.run("ip", "-o", "link", "show").out().split("\n")) {
            // "12: tjep-v1@if2: <BROADCAST,...": the name is the second field, up to '@' or ':'
            String[] parts = line.split(":\\s+", 3);
            if (parts.length < 2) continue;
            String name = parts[1].split("@")[0];
            if (name.startsWith(layout.prefix() + "-v")) out.add(name);
        }
        if (linkExists(layout.bridge())) out.add(layout.bridge());
        return out;
    }

    private boolean linkExists(String name) {
        return shell.run("ip", "link", "show", "dev", name).ok();
    }

    private void removeCgroups(String controller, List<String> problems) {
        Path root = layout.cgroupRoot(controller);
        if (!Files.isDirectory(root)) return;
        try (Stream<Path> dirs = Files.walk(root)) {
            // Children before parents; rmdir is the only way to remove a cgroup (its files cannot be deleted).
            for (Path d : dirs.filter(Files::isDirectory).sorted(Comparator.comparing(Path::getNameCount).reversed()).toList()) {
                try {
                    Files.delete(d);
                } catch (IOException e) {
                    problems.add("cannot remove cgroup " + d + ": " + e.getMessage());
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            // Also when something else removes groups while we walk (a concurrent cleanup): check what is left.
            if (Files.isDirectory(root)) problems.add("cannot list cgroups under " + root + ": " + e.getMessage());
        }
    }

    static List<Long> pidsOf(String text) {
        List<Long> out = new ArrayList<>();
        for (String s : text.split("\\s+")) {
            if (s.isEmpty()) continue;
            try {
                out.add(Long.parseLong(s));
            } catch (NumberFormatException e) {
                // not a pid
            }
        }
        return out;
    }

    static Optional<String> commandLine(long pid) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            return Optional.of(new String(raw, StandardCharsets.UTF_8).replace('\0', ' '));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static void deleteQuietly(Path dir) {
        if (!Files.exists(dir)) return;
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException e) {
            // a leftover file is harmless; the next cleanup tries again
        }
    }
}
