package io.tandem.bench.os;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A file system of its own for one node's data directory: a sparse image file attached to a loop
 * device, formatted ext4 and mounted. Each node gets its own block device number, so a blkio
 * throttle on one follower's device slows only that follower's disk (they all still share the
 * physical disk underneath, which the healthy run shows).
 */
public final class LoopDisk implements AutoCloseable {
    private final Path image;
    private final String device;
    private final CgroupV1.DeviceNumber deviceNumber;
    private final Path mountPoint;
    private boolean closed;

    private LoopDisk(Path image, String device, CgroupV1.DeviceNumber deviceNumber, Path mountPoint) {
        this.image = image;
        this.device = device;
        this.deviceNumber = deviceNumber;
        this.mountPoint = mountPoint;
    }

    /** Creates a sparse {@code sizeBytes} image, attaches it, formats it ext4 and mounts it on {@code mountPoint}. */
    public static LoopDisk create(Path image, long sizeBytes, Path mountPoint) {
        try {
            Files.createDirectories(image.getParent());
            Files.createDirectories(mountPoint);
            try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "rw")) {
                f.setLength(sizeBytes);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create disk image " + image + ": " + e.getMessage(), e);
        }
        String device = Shell.check("losetup", "--find", "--show", image.toString()).strip();
        try {
            CgroupV1.DeviceNumber number = deviceNumberOf(device);
            // No lazy initialisation: otherwise ext4 zeroes inode tables in the background during the runs.
            Shell.check("mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", device);
            Shell.check("mount", device, mountPoint.toString());
            return new LoopDisk(image, device, number, mountPoint);
        } catch (RuntimeException e) {
            Shell.run(List.of("umount", mountPoint.toString()), Duration.ofSeconds(30));
            Shell.run(List.of("losetup", "-d", device), Duration.ofSeconds(30));
            throw e;
        }
    }

    /** The {@code MAJOR:MINOR} of a block device such as {@code /dev/loop3}, from sysfs. */
    public static CgroupV1.DeviceNumber deviceNumberOf(String device) {
        String name = Path.of(device).getFileName().toString();
        Path dev = Path.of("/sys/class/block", name, "dev");
        try {
            return CgroupV1.DeviceNumber.parse(Files.readString(dev, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + dev + ": " + e.getMessage(), e);
        }
    }

    public String device() {
        return device;
    }

    public CgroupV1.DeviceNumber deviceNumber() {
        return deviceNumber;
    }

    public Path mountPoint() {
        return mountPoint;
    }

    /** Unmounts, detaches the loop device and deletes the image. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        unmountAndDetach(mountPoint, device, image);
    }

    private static void unmountAndDetach(Path mountPoint, String device, Path image) {
        if (mounted(mountPoint)) {
            Shell.Result r = Shell.run(List.of("umount", mountPoint.toString()), Duration.ofSeconds(60));
            if (!r.ok()) {
                // Something still holds a file open (a server that did not die yet): detach lazily.
                System.err.println("cleanup: " + mountPoint + " busy (" + r.stderr().strip() + "), unmounting lazily");
                Shell.run(List.of("umount", "-l", mountPoint.toString()), Duration.ofSeconds(30));
            }
        }
        if (device != null) {
            Shell.run(List.of("losetup", "-d", device), Duration.ofSeconds(30));
            awaitDetached(device);
        }
        try {
            Files.deleteIfExists(image);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete disk image " + image + ": " + e.getMessage(), e);
        }
    }

    /** The kernel detaches a loop device asynchronously; waits (up to 10 s) until it has no backing file any more. */
    private static void awaitDetached(String device) {
        Path backing = Path.of("/sys/class/block", Path.of(device).getFileName().toString(), "loop", "backing_file");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (Files.exists(backing) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        if (Files.exists(backing)) System.err.println("cleanup: " + device + " is still attached 10 s after losetup -d");
    }

    /**
     * Removes what an earlier run that was killed left behind: mounts below {@code mountBase} and
     * loop devices backed by {@code tandem-failslow-*} image files in {@code imageDir}.
     */
    public static void sweep(Path mountBase, Path imageDir) {
        Path base = mountBase.toAbsolutePath().normalize();
        for (Path mount : mountsUnder(base)) {
            if (!Shell.run(List.of("umount", mount.toString()), Duration.ofSeconds(60)).ok()) {
                Shell.run(List.of("umount", "-l", mount.toString()), Duration.ofSeconds(30));
            }
        }
        Path images = imageDir.toAbsolutePath().normalize();
        for (String[] loop : loopsBackedUnder(images)) {
            if (Path.of(loop[1]).getFileName().toString().startsWith("tandem-failslow-")) Shell.run(List.of("losetup", "-d", loop[0]), Duration.ofSeconds(30));
        }
    }

    private static boolean mounted(Path mountPoint) {
        return mountsUnder(mountPoint.toAbsolutePath().normalize()).contains(mountPoint.toAbsolutePath().normalize());
    }

    private static List<Path> mountsUnder(Path base) {
        List<Path> found = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
                String[] fields = line.split(" ");
                if (fields.length < 2) continue;
                Path mount = Path.of(unescapeMountField(fields[1]));
                if (mount.startsWith(base)) found.add(mount);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/mounts: " + e.getMessage(), e);
        }
        found.sort((a, b) -> b.getNameCount() - a.getNameCount()); // deepest first
        return found;
    }

    /** {@code losetup --list} rows (device, backing file) whose backing file lies under {@code base}. */
    private static List<String[]> loopsBackedUnder(Path base) {
        List<String[]> found = new ArrayList<>();
        Shell.Result r = Shell.run(List.of("losetup", "--list", "--noheadings", "--raw", "--output", "NAME,BACK-FILE"), Duration.ofSeconds(30));
        if (!r.ok()) return found;
        for (String line : r.stdout().split("\n")) {
            int space = line.indexOf(' ');
            if (space <= 0) continue;
            String back = line.substring(space + 1).strip();
            if (back.endsWith(" (deleted)")) back = back.substring(0, back.length() - " (deleted)".length());
            if (!back.isEmpty() && Path.of(back).startsWith(base)) found.add(new String[] {line.substring(0, space), back});
        }
        return found;
    }

    /** /proc/mounts writes space, tab, newline and backslash in octal ({@code \040}). */
    static String unescapeMountField(String field) {
        StringBuilder s = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length()
                    && isOctal(field.charAt(i + 1)) && isOctal(field.charAt(i + 2)) && isOctal(field.charAt(i + 3))) {
                s.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                s.append(c);
            }
        }
        return s.toString();
    }

    private static boolean isOctal(char c) {
        return c >= '0' && c <= '7';
    }
}
