package io.tandem.storage.file;

import io.tandem.engine.NodeId;
import io.tandem.storage.CorruptStorageException;
import io.tandem.storage.DataDirectoryMismatchException;
import io.tandem.storage.StorageException;
import io.tandem.storage.StorageIOException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A node's data directory: its identity file (cluster id, node id, storage format version) and
 * an exclusive lock. Opening checks the identity so a node never runs on another cluster's or
 * another node's history, nor on files of a format it cannot read; the lock keeps two processes
 * off one directory.
 *
 * <p>The identity file {@value #IDENTITY_FILE} is plain text, written once (atomically) when the
 * directory is created:
 * <pre>
 * format-version=1
 * cluster-id=prod
 * node-id=n1
 * checksum=&lt;crc32c of the lines above&gt;
 * </pre>
 */
public final class DataDirectory implements AutoCloseable {
    /** Version of the on-disk layout this build reads and writes. */
    public static final int FORMAT_VERSION = 1;
    public static final String IDENTITY_FILE = "tandem.id";
    static final String LOCK_FILE = "tandem.lock";
    private static final Set<String> OWN_LEFTOVERS = Set.of(IDENTITY_FILE + ".tmp", LOCK_FILE);

    private final Path path;
    private final String clusterId;
    private final NodeId node;
    private final FileChannel lockChannel;
    private final FileLock lock;

    private DataDirectory(Path path, String clusterId, NodeId node, FileChannel lockChannel, FileLock lock) {
        this.path = path;
        this.clusterId = clusterId;
        this.node = node;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /**
     * Opens (creating it if missing or empty) the data directory of {@code node} in cluster
     * {@code clusterId}.
     *
     * @throws DataDirectoryMismatchException if it belongs to another cluster or node, has another
     *         format version, or is a non-empty directory that is not a Tandem data directory
     * @throws CorruptStorageException        if the identity file is damaged
     * @throws StorageIOException             if another process holds the directory, or on I/O errors
     */
    public static DataDirectory open(Path path, String clusterId, NodeId node, boolean fsync) {
        validateClusterId(clusterId);
        Path dir = path.toAbsolutePath().normalize();
        Path identity = dir.resolve(IDENTITY_FILE);
        try {
            // Refuse a foreign directory before writing anything into it (not even the lock file).
            if (Files.isDirectory(dir) && !Files.exists(identity)) refuseIfForeign(dir);
            Files.createDirectories(dir);
            FileChannel lockChannel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = lockChannel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                lockChannel.close();
                throw new StorageIOException("data directory " + dir + " is in use by another Tandem node (" + LOCK_FILE + " is locked)");
            }
            try {
                if (Files.exists(identity)) {
                    check(dir, read(identity), clusterId, node);
                } else {
                    writeIdentity(dir, FORMAT_VERSION, clusterId, node.value(), fsync);
                }
            } catch (RuntimeException | IOException e) {
                lock.release();
                lockChannel.close();
                throw e;
            }
            return new DataDirectory(dir, clusterId, node, lockChannel, lock);
        } catch (IOException e) {
            throw StorageException.fromIOException("opening data directory " + dir, e);
        }
    }

    public Path path() {
        return path;
    }

    public String clusterId() {
        return clusterId;
    }

    public NodeId node() {
        return node;
    }

    @Override
    public void close() {
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            throw StorageException.fromIOException("releasing data directory " + path, e);
        }
    }

    private static void validateClusterId(String clusterId) {
        if (clusterId == null || clusterId.isBlank() || clusterId.length() > 256 || clusterId.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("invalid cluster id '" + clusterId + "': use 1-256 printable characters");
        }
    }

    private static void refuseIfForeign(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            Set<String> foreign = new HashSet<>();
            entries.map(p -> p.getFileName().toString()).filter(n -> !OWN_LEFTOVERS.contains(n)).forEach(foreign::add);
            if (!foreign.isEmpty()) {
                throw new DataDirectoryMismatchException("directory " + dir + " is not empty and is not a Tandem data directory (it has no "
                        + IDENTITY_FILE + "); refusing to use it. Point the node at an empty or a Tandem data directory.");
            }
        }
    }

    private record Identity(int formatVersion, String clusterId, String nodeId) {}

    private static Identity read(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        Map<String, String> fields = new HashMap<>();
        StringBuilder covered = new StringBuilder();
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) continue;
            int eq = line.indexOf('=');
            if (eq < 0) throw new CorruptStorageException(file.toString(), -1, "malformed line '" + line + "'");
            String key = line.substring(0, eq);
            fields.put(key, line.substring(eq + 1));
            if (!key.equals("checksum")) covered.append(line).append('\n');
        }
        String stored = fields.get("checksum");
        String computed = checksum(covered.toString());
        if (stored == null || !stored.equals(computed)) {
            throw new CorruptStorageException(file.toString(), -1, "identity checksum mismatch (stored " + stored + ", computed " + computed + ")");
        }
        try {
            return new Identity(Integer.parseInt(fields.get("format-version")), fields.get("cluster-id"), fields.get("node-id"));
        } catch (NumberFormatException e) {
            throw new CorruptStorageException(file.toString(), -1, "bad format-version '" + fields.get("format-version") + "'");
        }
    }

    private static void check(Path dir, Identity found, String clusterId, NodeId node) {
        if (found.formatVersion() != FORMAT_VERSION) {
            throw new DataDirectoryMismatchException("data directory " + dir + " has storage format version " + found.formatVersion()
                    + ", but this build of Tandem reads format version " + FORMAT_VERSION + "; refusing to open it");
        }
        if (!clusterId.equals(found.clusterId())) {
            throw new DataDirectoryMismatchException("data directory " + dir + " belongs to cluster '" + found.clusterId()
                    + "', not to cluster '" + clusterId + "'; refusing to open it");
        }
        if (!node.value().equals(found.nodeId())) {
            throw new DataDirectoryMismatchException("data directory " + dir + " belongs to node '" + found.nodeId()
                    + "', not to node '" + node + "'; refusing to open it");
        }
    }

    /** Writes an identity file; package-private so tests can fabricate other versions. */
    static void writeIdentity(Path dir, int formatVersion, String clusterId, String nodeId, boolean fsync) throws IOException {
        String body = "format-version=" + formatVersion + "\ncluster-id=" + clusterId + "\nnode-id=" + nodeId + "\n";
        String text = "# Tandem data directory identity. Written once when the directory was created; do not edit.\n"
                + body + "checksum=" + checksum(body) + "\n";
        FileIo.writeAtomically(dir.resolve(IDENTITY_FILE), text.getBytes(StandardCharsets.UTF_8), fsync);
    }

    private static String checksum(String text) {
        CRC32C crc = new CRC32C();
        crc.update(text.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().toHexDigits((int) crc.getValue());
    }
}
