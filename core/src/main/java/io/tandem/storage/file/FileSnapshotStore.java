package io.tandem.storage.file;

import io.tandem.storage.CorruptStorageException;
import io.tandem.storage.FlushPolicy;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.SnapshotWriter;
import io.tandem.storage.StorageException;
import io.tandem.storage.StorageFailedException;
import io.tandem.storage.stable.SnapshotInstall;
import io.tandem.storage.stable.SnapshotRejectedException;
import io.tandem.storage.stable.StableSnapshotStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshots as files {@code snapshot-<index>-<term>.snap} in one directory; see
 * {@link StableSnapshotStore} for the contract.
 *
 * <p>A file holds the data first, so chunk offsets are file offsets, then a footer (big-endian):
 * {@code engineData, int engineDataLength, long lastIncludedIndex, long lastIncludedTerm,
 * long dataSize, int dataCrc32c, int version, int footerCrc32c, int magic "TDSP"}. A snapshot is
 * written under a temporary name ({@code .tmp} for local ones, {@code .part} for ones received
 * from a peer), fsynced, and renamed into place, so a visible file is always complete; leftovers
 * of interrupted writes are deleted on open.
 */
public final class FileSnapshotStore implements StableSnapshotStore {
    private static final Logger log = LoggerFactory.getLogger(FileSnapshotStore.class);
    static final int FOOTER_MAGIC = 0x54445350; // "TDSP"
    static final int FOOTER_VERSION = 1;
    static final int FOOTER_FIXED_BYTES = 44;
    private static final Pattern NAME = Pattern.compile("snapshot-(\\d{20})-(\\d{20})\\.snap");
    private static final int IO_BUFFER_BYTES = 64 << 10;

    private final Path directory;
    private final boolean fsync;
    private final int snapshotsToKeep;
    private final TreeMap<Long, Retained> retained = new TreeMap<>();
    private final AtomicLong tempCounter = new AtomicLong();
    private volatile StorageException failure;

    private record Retained(SnapshotMeta meta, Path path) {}

    private FileSnapshotStore(Path directory, boolean fsync, int snapshotsToKeep) {
        this.directory = directory;
        this.fsync = fsync;
        this.snapshotsToKeep = snapshotsToKeep;
    }

    /** Opens the store in {@code directory}, removing leftovers of interrupted writes and snapshots beyond {@code snapshotsToKeep}. */
    public static FileSnapshotStore open(Path directory, FlushPolicy flushPolicy, int snapshotsToKeep) {
        if (snapshotsToKeep < 1) throw new IllegalArgumentException("snapshotsToKeep must be >= 1");
        FileSnapshotStore store = new FileSnapshotStore(directory.toAbsolutePath().normalize(), flushPolicy.fsync(), snapshotsToKeep);
        try {
            store.load();
        } catch (IOException e) {
            throw StorageException.fromIOException("opening snapshots in " + directory, e);
        }
        return store;
    }

    private void load() throws IOException {
        Files.createDirectories(directory);
        try (Stream<Path> entries = Files.list(directory)) {
            for (Path path : (Iterable<Path>) entries::iterator) {
                String name = path.getFileName().toString();
                if (name.endsWith(".tmp") || name.endsWith(".part")) {
                    log.info("{}: removing the leftover of an interrupted snapshot write", path);
                    Files.delete(path);
                    continue;
                }
                Matcher m = NAME.matcher(name);
                if (!m.matches()) continue;
                SnapshotMeta meta = readFooter(path);
                if (meta.lastIncludedIndex() != Long.parseLong(m.group(1)) || meta.lastIncludedTerm() != Long.parseLong(m.group(2))) {
                    throw new CorruptStorageException(path.toString(), -1, "footer describes index " + meta.lastIncludedIndex()
                            + " term " + meta.lastIncludedTerm() + ", which does not match the file name");
                }
                retained.put(meta.lastIncludedIndex(), new Retained(meta, path));
            }
        }
        prune();
    }

    @Override
    public synchronized List<SnapshotMeta> list() {
        List<SnapshotMeta> all = new ArrayList<>(retained.size());
        for (Retained r : retained.values()) all.add(r.meta());
        return all;
    }

    @Override
    public SnapshotMeta write(long lastIncludedIndex, long lastIncludedTerm, byte[] engineData, SnapshotWriter writer) {
        checkWritable();
        checkNotOlderThanLatest(lastIncludedIndex);
        Path temp = directory.resolve(fileName(lastIncludedIndex, lastIncludedTerm) + "." + tempCounter.incrementAndGet() + ".tmp");
        SnapshotMeta meta;
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ChecksummingOutput out = new ChecksummingOutput(channel);
            try {
                writer.writeTo(out);
                out.flushBuffer();
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(temp);
                if (out.storageError != null) throw failWith(out.storageError);
                throw e instanceof IOException io ? new UncheckedIOException("state machine failed writing its snapshot", io) : (RuntimeException) e;
            }
            // A writer may have swallowed the storage's IOException; the data is incomplete then.
            if (out.storageError != null) {
                Files.deleteIfExists(temp);
                throw failWith(out.storageError);
            }
            meta = new SnapshotMeta(lastIncludedIndex, lastIncludedTerm, out.count, (int) out.crc.getValue(), engineData);
            seal(channel, meta);
        } catch (IOException e) {
            deleteQuietly(temp);
            throw fail("writing snapshot " + temp, e);
        }
        return publish(temp, meta);
    }

    @Override
    public synchronized Optional<byte[]> readChunk(SnapshotMeta snapshot, long offset, int maxBytes) {
        if (offset < 0 || maxBytes <= 0) throw new IllegalArgumentException("bad chunk request: offset " + offset + ", maxBytes " + maxBytes);
        Retained r = retained.get(snapshot.lastIncludedIndex());
        if (r == null || !r.meta().equals(snapshot)) return Optional.empty();
        if (offset > snapshot.sizeBytes()) throw new IllegalArgumentException("offset " + offset + " beyond snapshot size " + snapshot.sizeBytes());
        ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(maxBytes, snapshot.sizeBytes() - offset));
        try (FileChannel channel = FileChannel.open(r.path(), StandardOpenOption.READ)) {
            FileIo.readFully(channel, chunk, offset);
        } catch (IOException e) {
            throw StorageException.fromIOException("reading snapshot " + r.path(), e);
        }
        return Optional.of(chunk.array());
    }

    @Override
    public InputStream open(SnapshotMeta snapshot) {
        Path path;
        synchronized (this) {
            Retained r = retained.get(snapshot.lastIncludedIndex());
            if (r == null || !r.meta().equals(snapshot)) throw new IllegalArgumentException("snapshot is not retained: " + snapshot);
            path = r.path();
        }
        try {
            // An open file stays readable on Linux even if pruning deletes it meanwhile.
            return new VerifyingInput(FileChannel.open(path, StandardOpenOption.READ), path, snapshot);
        } catch (IOException e) {
            throw StorageException.fromIOException("opening snapshot " + path, e);
        }
    }

    @Override
    public SnapshotInstall beginInstall(SnapshotMeta snapshot) {
        checkWritable();
        Path part = directory.resolve(fileName(snapshot.lastIncludedIndex(), snapshot.lastIncludedTerm()) + "."
                + tempCounter.incrementAndGet() + ".part");
        try {
            return new FileInstall(snapshot, part, FileChannel.open(part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
        } catch (IOException e) {
            throw fail("starting to receive snapshot " + part, e);
        }
    }

    @Override
    public void close() {
        // Nothing held open: every operation opens and closes its own file.
    }

    // ---- internals -----------------------------------------------------------------------------

    private synchronized void checkNotOlderThanLatest(long lastIncludedIndex) {
        if (!retained.isEmpty() && lastIncludedIndex < retained.lastKey()) {
            throw new IllegalArgumentException("snapshot at index " + lastIncludedIndex + " is older than the latest retained one at " + retained.lastKey());
        }
    }

    private void checkWritable() {
        StorageException f = failure;
        if (f != null) throw new StorageFailedException("snapshot store " + directory + " failed earlier: " + f.getMessage(), f);
    }

    private StorageException fail(String operation, IOException e) {
        return failWith(StorageException.fromIOException(operation, e));
    }

    private synchronized StorageException failWith(StorageException error) {
        if (failure == null) failure = error;
        return error;
    }

    /** Appends the footer after {@code meta.sizeBytes()} bytes of data and makes the file durable. */
    private void seal(FileChannel channel, SnapshotMeta meta) throws IOException {
        byte[] engineData = meta.engineData();
        ByteBuffer footer = ByteBuffer.allocate(engineData.length + FOOTER_FIXED_BYTES);
        footer.put(engineData).putInt(engineData.length).putLong(meta.lastIncludedIndex()).putLong(meta.lastIncludedTerm())
                .putLong(meta.sizeBytes()).putInt(meta.crc32c()).putInt(FOOTER_VERSION);
        CRC32C crc = new CRC32C();
        crc.update(footer.array(), 0, footer.position());
        footer.putInt((int) crc.getValue()).putInt(FOOTER_MAGIC).flip();
        FileIo.writeFully(channel, footer, meta.sizeBytes());
        if (fsync) channel.force(true);
    }

    /** Renames a sealed temporary file into place, then drops snapshots beyond the retention count. */
    private synchronized SnapshotMeta publish(Path temp, SnapshotMeta meta) {
        Path target = directory.resolve(fileName(meta.lastIncludedIndex(), meta.lastIncludedTerm()));
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            if (fsync) FileIo.fsyncDirectory(directory);
            retained.put(meta.lastIncludedIndex(), new Retained(meta, target));
            prune();
        } catch (IOException e) {
            deleteQuietly(temp);
            throw fail("publishing snapshot " + target, e);
        }
        return meta;
    }

    private void prune() throws IOException {
        boolean deleted = false;
        while (retained.size() > snapshotsToKeep) {
            Files.deleteIfExists(retained.pollFirstEntry().getValue().path());
            deleted = true;
        }
        if (deleted && fsync) FileIo.fsyncDirectory(directory);
    }

    private static SnapshotMeta readFooter(Path path) throws IOException {
        String where = path.toString();
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < FOOTER_FIXED_BYTES) throw new CorruptStorageException(where, 0, "snapshot file of " + size + " bytes has no footer");
            ByteBuffer fixed = ByteBuffer.allocate(FOOTER_FIXED_BYTES);
            FileIo.readFully(channel, fixed, size - FOOTER_FIXED_BYTES);
            long footerAt = size - FOOTER_FIXED_BYTES;
            if (fixed.getInt(40) != FOOTER_MAGIC) throw new CorruptStorageException(where, footerAt + 40, "bad snapshot footer magic");
            int engineLength = fixed.getInt(0);
            long dataSize = fixed.getLong(20);
            if (engineLength < 0 || dataSize < 0 || dataSize + engineLength + FOOTER_FIXED_BYTES != size) {
                throw new CorruptStorageException(where, footerAt, "snapshot footer sizes (data " + dataSize + ", engine data " + engineLength
                        + ") do not add up to the file size " + size);
            }
            ByteBuffer engineData = ByteBuffer.allocate(engineLength);
            FileIo.readFully(channel, engineData, dataSize);
            CRC32C crc = new CRC32C();
            crc.update(engineData.array());
            crc.update(fixed.array(), 0, 36);
            if ((int) crc.getValue() != fixed.getInt(36)) throw new CorruptStorageException(where, footerAt, "snapshot footer checksum mismatch");
            if (fixed.getInt(32) != FOOTER_VERSION) throw new CorruptStorageException(where, footerAt, "unsupported snapshot version " + fixed.getInt(32));
            return new SnapshotMeta(fixed.getLong(4), fixed.getLong(12), dataSize, fixed.getInt(28), engineData.array());
        }
    }

    static String fileName(long index, long term) {
        return String.format("snapshot-%020d-%020d.snap", index, term);
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            log.warn("could not delete {}: {}", path, e.toString());
        }
    }

    /** Buffers, counts and checksums what the state machine writes; remembers whether the storage (not the writer) failed. */
    private static final class ChecksummingOutput extends OutputStream {
        private final FileChannel channel;
        private final ByteBuffer buffer = ByteBuffer.allocate(IO_BUFFER_BYTES);
        final CRC32C crc = new CRC32C();
        long count;
        long written;
        StorageException storageError;

        ChecksummingOutput(FileChannel channel) {
            this.channel = channel;
        }

        @Override
        public void write(int b) throws IOException {
            if (!buffer.hasRemaining()) flushBuffer();
            buffer.put((byte) b);
            crc.update(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            crc.update(b, off, len);
            count += len;
            while (len > 0) {
                if (!buffer.hasRemaining()) flushBuffer();
                int n = Math.min(len, buffer.remaining());
                buffer.put(b, off, n);
                off += n;
                len -= n;
            }
        }

        void flushBuffer() throws IOException {
            buffer.flip();
            int n = buffer.remaining();
            try {
                FileIo.writeFully(channel, buffer, written);
            } catch (IOException e) {
                storageError = StorageException.fromIOException("writing snapshot data", e);
                throw e;
            } finally {
                buffer.clear();
            }
            written += n;
        }

        @Override
        public void flush() throws IOException {
            flushBuffer();
        }
    }

    /** The data of one snapshot file, checking its CRC32C once all of it has been read. */
    private static final class VerifyingInput extends InputStream {
        private final FileChannel channel;
        private final Path path;
        private final SnapshotMeta meta;
        private final ByteBuffer buffer = ByteBuffer.allocate(IO_BUFFER_BYTES).flip();
        private final CRC32C crc = new CRC32C();
        private long position;
        private boolean verified;

        VerifyingInput(FileChannel channel, Path path, SnapshotMeta meta) {
            this.channel = channel;
            this.path = path;
            this.meta = meta;
        }

        @Override
        public int read() throws IOException {
            if (!fill()) return -1;
            return buffer.get() & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) return 0;
            if (!fill()) return -1;
            int n = Math.min(len, buffer.remaining());
            buffer.get(b, off, n);
            return n;
        }

        private boolean fill() throws IOException {
            if (buffer.hasRemaining()) return true;
            long left = meta.sizeBytes() - position;
            if (left == 0) {
                verify();
                return false;
            }
            buffer.clear().limit((int) Math.min(buffer.capacity(), left));
            FileIo.readFully(channel, buffer, position);
            buffer.flip();
            crc.update(buffer.duplicate());
            position += buffer.remaining();
            return true;
        }

        private void verify() {
            if (verified) return;
            verified = true;
            if ((int) crc.getValue() != meta.crc32c()) {
                throw new CorruptStorageException(path.toString(), -1, "snapshot data checksum mismatch (expected "
                        + Integer.toHexString(meta.crc32c()) + ", computed " + Integer.toHexString((int) crc.getValue()) + ")");
            }
        }

        @Override
        public void close() throws IOException {
            try {
                if (!verified) {
                    buffer.position(buffer.limit());
                    while (fill()) buffer.position(buffer.limit());
                }
            } finally {
                channel.close();
            }
        }
    }

    private final class FileInstall implements SnapshotInstall {
        private final SnapshotMeta snapshot;
        private final Path part;
        private final FileChannel channel;
        private final CRC32C crc = new CRC32C();
        private long received;
        private boolean finished;

        FileInstall(SnapshotMeta snapshot, Path part, FileChannel channel) {
            this.snapshot = snapshot;
            this.part = part;
            this.channel = channel;
        }

        @Override
        public SnapshotMeta snapshot() {
            return snapshot;
        }

        @Override
        public long bytesReceived() {
            return received;
        }

        @Override
        public void write(byte[] chunk) throws SnapshotRejectedException {
            if (finished) throw new IllegalStateException("snapshot install already finished");
            checkWritable();
            if (received + chunk.length > snapshot.sizeBytes()) {
                abort();
                throw new SnapshotRejectedException("received " + (received + chunk.length) + " bytes for a snapshot of "
                        + snapshot.sizeBytes() + " bytes");
            }
            try {
                FileIo.writeFully(channel, ByteBuffer.wrap(chunk), received);
            } catch (IOException e) {
                abort();
                throw fail("writing received snapshot " + part, e);
            }
            crc.update(chunk);
            received += chunk.length;
        }

        @Override
        public SnapshotMeta commit() throws SnapshotRejectedException {
            if (finished) throw new IllegalStateException("snapshot install already finished");
            checkWritable();
            String problem = null;
            if (received != snapshot.sizeBytes()) {
                problem = "received " + received + " bytes for a snapshot of " + snapshot.sizeBytes() + " bytes";
            } else if ((int) crc.getValue() != snapshot.crc32c()) {
                problem = "checksum mismatch: received data has crc32c " + Integer.toHexString((int) crc.getValue())
                        + ", the snapshot says " + Integer.toHexString(snapshot.crc32c());
            } else {
                synchronized (FileSnapshotStore.this) {
                    if (!retained.isEmpty() && snapshot.lastIncludedIndex() < retained.lastKey()) {
                        problem = "snapshot at index " + snapshot.lastIncludedIndex() + " is older than the local one at " + retained.lastKey();
                    }
                }
            }
            if (problem != null) {
                abort();
                throw new SnapshotRejectedException(problem);
            }
            try {
                seal(channel, snapshot);
                channel.close();
            } catch (IOException e) {
                abort();
                throw fail("sealing received snapshot " + part, e);
            }
            finished = true;
            return publish(part, snapshot);
        }

        @Override
        public void abort() {
            if (finished) return;
            finished = true;
            try {
                channel.close();
            } catch (IOException e) {
                log.warn("closing {}: {}", part, e.toString());
            }
            deleteQuietly(part);
        }
    }
}
