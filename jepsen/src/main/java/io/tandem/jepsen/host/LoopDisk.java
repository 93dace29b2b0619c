package io.tandem.jepsen.host;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A node's own block device: a sparse image file on a loop device with an ext4 file system, mounted
 * where the node keeps its data. It exists so the slow-disk fault has a device to throttle (cgroup
 * {@code blkio} limits are per device), and it keeps one node's fsyncs from competing with another's
 * in the same page-cache writeback. Removed by {@link Cleanup} (found by its backing file).
 *
 * @param device     {@code /dev/loopN}
 * @param majorMinor the device number as blkio wants it, {@code 7:N}
 * @param mountPoint where the file system is mounted
 */
public record LoopDisk(String device, String majorMinor, Path mountPoint) {

    /** Creates, formats and mounts the disk of node {@code index}. */
    public static LoopDisk create(HostLayout layout, int index, long sizeBytes, Shell shell) {
        Path image = layout.diskImage(index);
        Path mount = layout.mountPoint(index);
        try {
            Files.createDirectories(image.getParent());
            Files.createDirectories(mount);
            try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "rw")) {
                f.setLength(sizeBytes); // sparse: costs no space until written
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the disk image " + image, e);
        }
        String device = shell.check("losetup", "--find", "--show", image.toString()).strip();
        shell.check("mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=1,lazy_journal_init=1", device);
        shell.check("mount", "-o", "noatime", device, mount.toString());
        String majorMinor;
        try {
            majorMinor = Files.readString(Path.of("/sys/block", Path.of(device).getFileName().toString(), "dev")).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the device number of " + device, e);
        }
        return new LoopDisk(device, majorMinor, mount);
    }

    /** True if this host can make loop devices and ext4 file systems. */
    public static boolean available(Shell shell) {
        return Files.exists(Path.of("/dev/loop-control")) && shell.run("mkfs.ext4", "-V").ok();
    }
}
