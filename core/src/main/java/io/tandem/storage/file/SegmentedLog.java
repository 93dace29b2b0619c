package io.tandem.storage.file;

import io.tandem.storage.CorruptStorageException;
import io.tandem.storage.FlushPolicy;
import io.tandem.storage.LogEntry;
import io.tandem.storage.StorageException;
import io.tandem.storage.StorageFailedException;
import io.tandem.storage.StorageFullException;
import io.tandem.storage.stable.StableLog;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write-ahead log as a directory of segment files ({@code log-<sequence>.seg}), appended to
 * in order; see {@link StableLog} for the durability contract.
 *
 * <p>Format (big-endian). A segment starts with a 32-byte header: magic {@code "TDLG"}, version,
 * flags, sequence number, index of its first record, CRC32C of the preceding 28 bytes. Records
 * follow back to back: {@code int payloadLength, int crc32c, long index, long term, payload}, the
 * CRC32C covering length, index, term and payload. The records of one batch (what one {@link #sync()}
 * makes durable) are preceded by a 24-byte batch header in the same write: {@code int magic (negative,
 * so never a length), int crc32c, long firstIndex, long durableIndex}, the durable index being how far
 * the log was synced when the header was written; a segment's data starts with one (version 2; 24
 * bytes per batch, nothing per record). Segments of version 1 (no batch headers, written up to session
 * 21) are still read; appends then continue in a new segment. Segments are numbered consecutively; a
 * segment flagged {@code RESET} (written by {@link #resetAfter}) makes every older one obsolete.
 *
 * <p>Group commit: appends go to a 1 MiB write buffer and reach the file in large writes;
 * {@link #sync()} writes the rest and calls {@link FileChannel#force} once. Rolling to a new
 * segment first forces the old one, so only the last segment can ever hold an unsynced tail.
 *
 * <p>Recovery on {@link #open}: every record and batch header is checked (length, checksum, index).
 * A bad record in the last segment is the torn end of the one batch that was in flight, and is cut
 * from there, unless a later batch header claims that record durable (see {@link #scan} for why that
 * is exactly the line between the two): a partial record, a zero-filled tail, blocks of the last
 * batch that reached the disk out of order on power loss (a later block without an earlier one).
 * Anything else (a bad record with a later batch claiming it durable, a bad record in an earlier
 * segment, a valid checksum over the wrong index, a missing segment, a gap in the indexes) is
 * reported as {@link CorruptStorageException} with the file and byte offset and never repaired
 * silently, since cutting there could drop acknowledged entries. A deleted <em>last</em> segment
 * cannot be detected (it looks like writes that never happened).
 *
 * <p>Without fsync ({@link FlushPolicy#NO_FSYNC}) the buffer reaches the file through a shared memory mapping of
 * the active segment's tail instead of a {@code pwrite} per sync (issue 25, raft19: the write was a fifth of every
 * replica's engine-loop CPU at 64 clients). A store into a {@code MAP_SHARED} page is in the page cache at once, where
 * a process crash (kill -9) keeps it exactly as it keeps a {@code pwrite}: all that policy promises. The mapping runs
 * over the whole segment (at least {@link #MIN_MAP_WINDOW_BYTES}, at most {@link #MAX_MAP_WINDOW_BYTES}), which extends the
 * file with zeros once per segment (growing the file is a journalled metadata change that can wait for the file system's
 * journal, so it is not paid per batch: a 4 MiB window did it every ~45,000 entries and showed up as rounds the disk thread
 * had to take over); a clean close, a roll and a
 * truncation cut the file back to its data, and after a crash recovery cuts the zero tail as the torn tail it is
 * (zeros never pass a record's checksum). With fsync the log writes with {@code pwrite} and forces, as before.
 *
 * <p>With fsync the active segment keeps zeros ahead of its data ({@link #prepareAhead}, issue 25, fsync21): between
 * {@link #PREALLOCATE_LOW_WATER_BYTES} and {@link #PREALLOCATE_AHEAD_BYTES} past the last record, written and made
 * durable by the disk thread after a round's completions are posted, once per megabyte or so of log. A sync then
 * overwrites blocks the file already has inside its length, so {@code fdatasync} writes the data and flushes the
 * device cache and nothing else; a sync that appends must also commit the new length and block allocation through
 * ext4's journal, which every file system's fsync shares (the three replicas of the peer harness on one disk, and
 * anything else writing there: a journal commit in ordered mode first writes every other file's newly allocated data).
 * The zeros are the same torn tail as the mapped tail's above: a roll, a truncation and a clean close cut them, so
 * only the last segment can end in zeros, and recovery cuts them there. On power loss (not on a process crash, where
 * the page cache keeps every write in order) the blocks of the batch being written may reach the disk out of order,
 * since nothing in the file system orders writes to blocks a file already owns: a later block on disk without an
 * earlier one. Until session 22 recovery refused that as corruption; the batch headers let it cut exactly that batch
 * (it was never synced, so nothing acknowledged is in it) and still refuse damage to synced data ({@link #scan}), so
 * the node restarts by itself. {@code -Dtandem.storage.preallocate=false} (read once per JVM) still turns
 * preallocation off, for file systems where writing zeros ahead costs more than it saves.
 */
public final class SegmentedLog implements StableLog {
    private static final Logger log = LoggerFactory.getLogger(SegmentedLog.class);

    static final int SEGMENT_MAGIC = 0x54444C47; // "TDLG"
    /** Segments written now: records in batches, each opened by a batch header (class comment). */
    static final int SEGMENT_VERSION = 2;
    /** Segments written before batch headers (up to session 21): still read, never appended to. */
    static final int SEGMENT_VERSION_RECORDS_ONLY = 1;
    static final int SEGMENT_HEADER_BYTES = 32;
    static final int RECORD_HEADER_BYTES = 24;
    /** Opens a batch header; negative as an {@code int}, so never a record's length field. */
    static final int BATCH_MAGIC = 0xBA7C4ED5;
    static final int BATCH_HEADER_BYTES = 24;
    static final int FLAG_RESET = 1;
    private static final int WRITE_BUFFER_BYTES = 1 << 20;
    /** Without fsync: the smallest and largest window of the active segment mapped at a time (normally the whole segment). */
    static final long MIN_MAP_WINDOW_BYTES = 4L << 20;
    static final long MAX_MAP_WINDOW_BYTES = 64L << 20;
    private static final long PAGE_BYTES = 4096;
    /** With fsync: the zeros kept ahead of the active segment's data, extended when fewer than the low water remain. */
    static final long PREALLOCATE_AHEAD_BYTES = 2L << 20;
    static final long PREALLOCATE_LOW_WATER_BYTES = 1L << 20;
    /** Whether fsync'd logs keep durable zeros ahead of their data (class comment; on unless the property says false). */
    static final boolean PREALLOCATE = !"false".equalsIgnoreCase(System.getProperty("tandem.storage.preallocate", "true").strip());
    /** The source of those zeros (never written to; each use takes its own duplicate). */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 20).asReadOnlyBuffer();
    private static final Pattern SEGMENT_NAME = Pattern.compile("log-(\\d{20})\\.seg");
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final Path directory;
    private final boolean fsync;
    private final long segmentBytes;
    /** Without fsync: the length of a mapped window, the segment size within [MIN, MAX]_MAP_WINDOW_BYTES, whole pages. */
    private final long mapWindowBytes;
    private final ArrayList<Segment> segments = new ArrayList<>();
    private final ByteBuffer writeBuffer = ByteBuffer.allocateDirect(WRITE_BUFFER_BYTES);
    private final CRC32C crc = new CRC32C();
    private long firstIndex;
    private long lastIndex;
    private long syncedIndex;
    private boolean dirty;
    private boolean closed;
    private StorageException failure;

    private SegmentedLog(Path directory, FlushPolicy flushPolicy, long segmentBytes) {
        this.directory = directory;
        this.fsync = flushPolicy.fsync();
        this.segmentBytes = segmentBytes;
        this.mapWindowBytes = Math.clamp((segmentBytes + PAGE_BYTES - 1) & -PAGE_BYTES, MIN_MAP_WINDOW_BYTES, MAX_MAP_WINDOW_BYTES);
    }

    /**
     * Opens (creating if needed) the log in {@code directory} and recovers it.
     *
     * @param segmentBytes size at which a new segment is started (a single larger record still fits)
     * @throws CorruptStorageException if the log is damaged beyond a torn tail
     */
    public static SegmentedLog open(Path directory, FlushPolicy flushPolicy, long segmentBytes) {
        if (segmentBytes < 4096 || segmentBytes > (1L << 30)) {
            throw new IllegalArgumentException("segmentBytes must be in [4 KiB, 1 GiB], was " + segmentBytes);
        }
        SegmentedLog result = new SegmentedLog(directory.toAbsolutePath().normalize(), flushPolicy, segmentBytes);
        try {
            result.recover();
            return result;
        } catch (IOException e) {
            result.closeChannels();
            throw StorageException.fromIOException("recovering log in " + directory, e);
        } catch (RuntimeException e) {
            result.closeChannels();
            throw e;
        }
    }

    @Override
    public long firstIndex() {
        return firstIndex;
    }

    @Override
    public long lastIndex() {
        return lastIndex;
    }

    @Override
    public long syncedIndex() {
        return syncedIndex;
    }

    /** Number of segment files, for tests and diagnostics. */
    public int segmentCount() {
        return segments.size();
    }

    public Path directory() {
        return directory;
    }

    @Override
    public LogEntry entry(long index) {
        checkOpen();
        if (index < firstIndex || index > lastIndex) {
            throw new IndexOutOfBoundsException("log index " + index + " outside [" + firstIndex + ", " + lastIndex + "]");
        }
        Segment segment = segments.get(segmentHolding(index));
        long offset = segment.offsetOf(index);
        int recordBytes = (int) (segment.endOf(index) - offset);
        if (offset >= segment.writtenBytes) return decode(bufferedRecord(offset - segment.writtenBytes), segment, offset, index);
        ByteBuffer record = ByteBuffer.allocate(recordBytes);
        try {
            FileIo.readFully(segment.channel, record, offset);
        } catch (IOException e) {
            throw fail("reading entry " + index + " from " + segment.path, e);
        }
        return decode(record, segment, offset, index);
    }

    @Override
    public void forEach(long fromIndex, Consumer<LogEntry> action) {
        checkOpen();
        if (fromIndex < firstIndex) throw new IndexOutOfBoundsException("log index " + fromIndex + " is before the first retained " + firstIndex);
        if (fromIndex > lastIndex) return;
        for (int k = segmentHolding(fromIndex); k < segments.size(); k++) {
            Segment segment = segments.get(k);
            long start = Math.max(fromIndex, segment.baseIndex);
            if (start > segment.lastIndex()) continue;
            long mapFrom = segment.offsetOf(start);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment mapped = mapFrom < segment.writtenBytes
                        ? segment.channel.map(FileChannel.MapMode.READ_ONLY, mapFrom, segment.writtenBytes - mapFrom, arena)
                        : MemorySegment.NULL;
                for (long index = start; index <= segment.lastIndex(); index++) {
                    long offset = segment.offsetOf(index);
                    ByteBuffer record = offset < segment.writtenBytes
                            ? mapped.asSlice(offset - mapFrom, segment.endOf(index) - offset).asByteBuffer()
                            : bufferedRecord(offset - segment.writtenBytes);
                    action.accept(decode(record, segment, offset, index));
                }
            } catch (IOException e) {
                throw fail("reading " + segment.path, e);
            }
        }
    }

    @Override
    public void append(LogEntry entry) {
        checkWritable();
        if (entry.index() != lastIndex + 1) {
            throw new IllegalArgumentException("append of index " + entry.index() + " to a log ending at " + lastIndex);
        }
        byte[] payload = entry.payload();
        if (payload.length > MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("payload of " + payload.length + " bytes exceeds " + MAX_PAYLOAD_BYTES);
        }
        int recordBytes = RECORD_HEADER_BYTES + payload.length;
        // The first record after a sync (or a roll, truncation, reset, recovery: the log is clean) opens a batch: a
        // header goes in front of it, in the same write.
        int headerBytes = dirty ? 0 : BATCH_HEADER_BYTES;
        Segment active = segments.getLast();
        try {
            if (active.count > 0 && active.size + headerBytes + recordBytes > segmentBytes) {
                active = roll();
                headerBytes = BATCH_HEADER_BYTES;
            }
            int bytes = headerBytes + recordBytes;
            if (writeBuffer.remaining() < bytes) flushBuffer(active);
            boolean buffered = bytes <= writeBuffer.capacity();
            ByteBuffer target = buffered ? writeBuffer : ByteBuffer.allocate(bytes);
            if (headerBytes > 0) putBatchHeader(target, entry.index());
            int start = target.position();
            target.putInt(payload.length).putInt(0).putLong(entry.index()).putLong(entry.term()).put(payload);
            target.putInt(start + 4, recordCrc(target.slice(start, recordBytes)));
            if (!buffered) {
                target.flip();
                FileIo.writeFully(active.channel, target, active.writtenBytes);
                active.wrote(bytes);
            }
        } catch (IOException e) {
            throw fail("appending entry " + entry.index() + " to " + active.path, e);
        }
        active.addRecord(active.size + headerBytes, headerBytes > 0);
        active.size += headerBytes + recordBytes;
        lastIndex = entry.index();
        dirty = true;
    }

    /**
     * Writes the header that opens a batch starting at {@code firstIndex}: {@code int magic, int crc32c, long firstIndex,
     * long durableIndex}, the CRC32C covering magic, first index and durable index. {@code durableIndex} is the log's
     * synced index now, which recovery reads as a claim: every entry up to it was durable before this header was written
     * (see {@link #scan}). With one sync at a time it is always {@code firstIndex - 1}.
     */
    private void putBatchHeader(ByteBuffer target, long firstIndex) {
        int start = target.position();
        target.putInt(BATCH_MAGIC).putInt(0).putLong(firstIndex).putLong(syncedIndex);
        target.putInt(start + 4, batchHeaderCrc(target.slice(start, BATCH_HEADER_BYTES)));
    }

    @Override
    public long sync() {
        checkWritable();
        if (!dirty) return syncedIndex;
        Segment active = segments.getLast();
        try {
            flushBuffer(active);
            if (fsync) active.channel.force(false);
        } catch (IOException e) {
            throw fail("syncing " + active.path, e);
        }
        dirty = false;
        syncedIndex = lastIndex;
        return syncedIndex;
    }

    @Override
    public void truncateSuffix(long fromIndex) {
        checkWritable();
        if (fromIndex < firstIndex) {
            throw new IllegalArgumentException("cannot truncate from " + fromIndex + ": entries before " + firstIndex + " are compacted");
        }
        if (fromIndex > lastIndex) return;
        int holder = segmentHolding(fromIndex);
        Segment segment = segments.get(holder);
        try {
            flushBuffer(segments.getLast());
            // Newest first: a crash part-way leaves a shorter but contiguous log.
            boolean deleted = false;
            while (segments.size() - 1 > holder) {
                Segment doomed = segments.removeLast();
                doomed.unmap();
                doomed.channel.close();
                Files.delete(doomed.path);
                deleted = true;
            }
            if (deleted && fsync) FileIo.fsyncDirectory(directory);
            long cut = segment.startOf(fromIndex); // with the batch header in front of it, if it opened a batch
            segment.unmap(); // no mapped page may lie past the new end of the file
            segment.channel.truncate(cut);
            if (fsync) segment.channel.force(false);
            segment.truncateRecords((int) (fromIndex - segment.baseIndex), cut); // the preallocated zeros went with the cut
            // An old-format segment is never appended to (see recover): the log goes on in a new one.
            if (segment.version == SEGMENT_VERSION_RECORDS_ONLY) segments.add(createSegment(segment.seq + 1, fromIndex, 0));
        } catch (IOException e) {
            throw fail("truncating log from index " + fromIndex + " in " + segment.path, e);
        }
        lastIndex = fromIndex - 1;
        syncedIndex = lastIndex;
        dirty = false;
    }

    @Override
    public void compactPrefix(long upToIndex) {
        checkWritable();
        if (upToIndex < firstIndex) return;
        if (upToIndex > lastIndex) {
            throw new IllegalArgumentException("cannot compact up to " + upToIndex + " beyond the last index " + lastIndex + "; use resetAfter");
        }
        sync();
        firstIndex = upToIndex + 1;
        try {
            boolean deleted = false;
            // Never the last segment: appends continue there.
            while (segments.size() > 1 && segments.getFirst().lastIndex() <= upToIndex) {
                Segment doomed = segments.removeFirst();
                doomed.channel.close();
                Files.delete(doomed.path);
                deleted = true;
            }
            if (deleted && fsync) FileIo.fsyncDirectory(directory);
        } catch (IOException e) {
            throw fail("compacting log up to index " + upToIndex, e);
        }
    }

    @Override
    public void resetAfter(long lastIncludedIndex) {
        checkWritable();
        if (lastIncludedIndex < 0) throw new IllegalArgumentException("lastIncludedIndex must be >= 0, was " + lastIncludedIndex);
        writeBuffer.clear();
        try {
            // The RESET segment is durable before anything is deleted, so a crash in between
            // recovers to the reset state: recovery ignores every segment older than it.
            Segment fresh = createSegment(segments.getLast().seq + 1, lastIncludedIndex + 1, FLAG_RESET);
            for (Segment old : segments) {
                old.unmap();
                old.channel.close();
                Files.delete(old.path);
            }
            segments.clear();
            segments.add(fresh);
            if (fsync) FileIo.fsyncDirectory(directory);
        } catch (IOException e) {
            throw fail("resetting log after index " + lastIncludedIndex, e);
        }
        firstIndex = lastIncludedIndex + 1;
        lastIndex = lastIncludedIndex;
        syncedIndex = lastIncludedIndex;
        dirty = false;
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        if (!segments.isEmpty() && failure == null) {
            try {
                trimTail(segments.getLast()); // a mapped or preallocated tail's zeros go; unsynced buffered records are dropped as before
            } catch (IOException e) {
                log.warn("trimming {} at close: {}", segments.getLast().path, e.toString());
            }
        }
        closeChannels();
    }

    // ---- writing -------------------------------------------------------------------------------

    private Segment roll() throws IOException {
        Segment old = segments.getLast();
        flushBuffer(old);
        boolean trimmed = trimTail(old);
        // The old segment is complete and durable before the next one exists, so recovery may
        // treat a bad record in any segment but the last as corruption, never as a torn write.
        // A cut of preallocated zeros changed the file's length: force(true) makes that durable too.
        if (fsync) old.channel.force(trimmed);
        if (dirty) syncedIndex = lastIndex;
        dirty = false;
        Segment fresh = createSegment(old.seq + 1, lastIndex + 1, 0);
        segments.add(fresh);
        return fresh;
    }

    private Segment createSegment(long seq, long baseIndex, int flags) throws IOException {
        Path path = directory.resolve(segmentName(seq));
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            ByteBuffer header = ByteBuffer.allocate(SEGMENT_HEADER_BYTES);
            header.putInt(SEGMENT_MAGIC).putInt(SEGMENT_VERSION).putInt(flags).putLong(seq).putLong(baseIndex);
            crc.reset();
            crc.update(header.array(), 0, SEGMENT_HEADER_BYTES - 4);
            header.putInt((int) crc.getValue()).flip();
            FileIo.writeFully(channel, header, 0);
            if (fsync) {
                channel.force(true);
                FileIo.fsyncDirectory(directory);
            }
        } catch (IOException e) {
            channel.close();
            throw e;
        }
        Segment segment = new Segment(path, seq, baseIndex, flags, SEGMENT_VERSION, channel);
        segment.size = segment.writtenBytes = segment.fileBytes = SEGMENT_HEADER_BYTES;
        return segment;
    }

    private void flushBuffer(Segment active) throws IOException {
        if (writeBuffer.position() == 0) return;
        writeBuffer.flip();
        int bytes = writeBuffer.remaining();
        try {
            if (fsync) {
                FileIo.writeFully(active.channel, writeBuffer, active.writtenBytes);
            } else {
                MemorySegment window = active.mappedFor(active.writtenBytes, bytes, mapWindowBytes);
                try {
                    MemorySegment.copy(MemorySegment.ofBuffer(writeBuffer), 0, window, active.writtenBytes - active.mapFrom, bytes);
                } catch (InternalError fault) {
                    throw mappedWriteFault(active, bytes, fault);
                }
            }
        } finally {
            writeBuffer.clear();
        }
        active.wrote(bytes);
    }

    /**
     * With fsync: keeps {@link #PREALLOCATE_LOW_WATER_BYTES} to {@link #PREALLOCATE_AHEAD_BYTES} of durable zeros past the
     * active segment's data (never past the segment's size), so the next syncs overwrite blocks inside the file's length
     * (see the class comment). Zeros only ever go past the last record, and are durable before a record is written over
     * them only as an optimisation: a record written past them, or before they are durable, is made durable by its own
     * sync as before. A full disk is not a storage failure here: the zeros written are cut again and this segment stops
     * preallocating, so the appends themselves meet the full disk, as without preallocation. Any other I/O error fails
     * the log like a failed write.
     */
    @Override
    public void prepareAhead() {
        if (!PREALLOCATE || !fsync || closed || failure != null || writeBuffer.position() != 0) return;
        Segment active = segments.getLast();
        if (!active.preallocate || active.fileBytes - active.writtenBytes >= PREALLOCATE_LOW_WATER_BYTES) return;
        long end = Math.min(active.writtenBytes + PREALLOCATE_AHEAD_BYTES, segmentBytes);
        if (end <= active.fileBytes) return;
        try {
            for (long at = active.fileBytes; at < end; ) {
                ByteBuffer zeros = ZEROS.duplicate();
                zeros.limit((int) Math.min(zeros.capacity(), end - at));
                int n = zeros.remaining();
                FileIo.writeFully(active.channel, zeros, at);
                at += n;
            }
            active.channel.force(false); // fdatasync: the zeros and the length that covers them
            active.fileBytes = end;
        } catch (IOException e) {
            // Any other I/O error leaves the file's state unknown, as a failed write or sync would: the log fails.
            if (!(StorageException.fromIOException("preallocating", e) instanceof StorageFullException)) {
                throw fail("preallocating log space in " + active.path, e);
            }
            active.preallocate = false;
            log.warn("{}: cannot preallocate log space ({}); this segment continues without", active.path, e.toString());
            try {
                active.channel.truncate(active.writtenBytes);
                active.fileBytes = active.writtenBytes;
            } catch (IOException cut) {
                throw fail("cutting the preallocated tail of " + active.path, cut);
            }
        }
    }

    /**
     * A store into a shared file mapping that the file system cannot back (a full disk, an I/O error) does
     * not return an error as {@code pwrite} does: the page fault raises SIGBUS, which the JDK turns into an
     * {@link InternalError} in the copying thread. Left alone it killed the disk thread and the node hung
     * (FullDiskTest with fsync off). Turned into the {@link IOException} a write would have given, it fails the
     * storage the same typed way: {@code writtenBytes} is not advanced, nothing of the batch is acknowledged,
     * and whatever part of it reached the page cache is a torn tail that recovery cuts by its CRC.
     */
    private static IOException mappedWriteFault(Segment segment, int bytes, InternalError fault) {
        long usable;
        try {
            usable = Files.getFileStore(segment.path).getUsableSpace();
        } catch (IOException | RuntimeException e) {
            usable = -1;
        }
        String cause = usable >= 0 && usable < bytes + PAGE_BYTES ? "No space left on device" : "I/O error";
        return new IOException(cause + " (a fault writing " + bytes + " bytes through the mapping of " + segment.path + ")", fault);
    }

    /**
     * Unmaps {@code segment}'s tail window (if any) and cuts the file back to its data (a mapped window's or
     * {@link #prepareAhead}'s zeros), so that only the active segment can carry a zero tail (recovery treats a bad
     * record in an earlier segment as corruption). True if the file's length changed.
     */
    private static boolean trimTail(Segment segment) throws IOException {
        boolean mapped = segment.unmap();
        if (!mapped && segment.fileBytes <= segment.writtenBytes) return false;
        segment.channel.truncate(segment.writtenBytes);
        segment.fileBytes = segment.writtenBytes;
        return true;
    }

    private ByteBuffer bufferedRecord(long offsetInBuffer) {
        int at = (int) offsetInBuffer;
        return writeBuffer.slice(at, RECORD_HEADER_BYTES + writeBuffer.getInt(at));
    }

    // ---- reading and checking ------------------------------------------------------------------

    /** CRC32C of one record laid out from position 0 of {@code record}, skipping its crc field. */
    private int recordCrc(ByteBuffer record) {
        crc.reset();
        crc.update(record.slice(0, 4));
        crc.update(record.slice(8, record.limit() - 8));
        return (int) crc.getValue();
    }

    /** CRC32C of one batch header laid out from position 0 of {@code header}, skipping its crc field. */
    private int batchHeaderCrc(ByteBuffer header) {
        crc.reset();
        crc.update(header.slice(0, 4));
        crc.update(header.slice(8, BATCH_HEADER_BYTES - 8));
        return (int) crc.getValue();
    }

    private LogEntry decode(ByteBuffer record, Segment segment, long offset, long expectedIndex) {
        int length = record.getInt(0);
        int stored = record.getInt(4);
        long index = record.getLong(8);
        long term = record.getLong(16);
        if (length != record.limit() - RECORD_HEADER_BYTES || stored != recordCrc(record) || index != expectedIndex) {
            throw failCorrupt(new CorruptStorageException(segment.path.toString(), offset,
                    "record of index " + expectedIndex + " no longer matches its checksum (the file changed after recovery)"));
        }
        byte[] payload = new byte[length];
        record.get(RECORD_HEADER_BYTES, payload);
        return new LogEntry(index, term, payload);
    }

    private int segmentHolding(long index) {
        int low = 0;
        int high = segments.size() - 1;
        while (low < high) { // the last segment whose base is <= index
            int mid = (low + high + 1) >>> 1;
            if (segments.get(mid).baseIndex <= index) low = mid;
            else high = mid - 1;
        }
        return low;
    }

    // ---- recovery ------------------------------------------------------------------------------

    private void recover() throws IOException {
        Files.createDirectories(directory);
        List<Path> files = listSegmentFiles();
        for (int i = 0; i < files.size(); i++) {
            Path path = files.get(i);
            boolean last = i == files.size() - 1;
            FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
            String problem = null;
            Segment segment = null;
            try {
                ByteBuffer header = ByteBuffer.allocate(SEGMENT_HEADER_BYTES);
                long size = channel.size();
                if (size >= SEGMENT_HEADER_BYTES) FileIo.readFully(channel, header, 0);
                problem = checkHeader(header, size, sequenceOf(path));
                if (problem == null) {
                    segment = new Segment(path, header.getLong(12), header.getLong(20), header.getInt(8), header.getInt(4), channel);
                } else if (last && isTornCreation(channel, size)) {
                    // Crash while creating the segment: its header never became durable and no
                    // record was written to it (records only follow a durable header).
                    log.warn("{}: removing a segment whose creation was interrupted ({})", path, problem);
                    channel.close();
                    Files.delete(path);
                    if (fsync) FileIo.fsyncDirectory(directory);
                    continue;
                }
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
            if (segment == null) {
                channel.close();
                throw new CorruptStorageException(path.toString(), 0, "bad segment header: " + problem);
            }
            segments.add(segment);
        }
        dropSegmentsBeforeLastReset();
        for (int i = 1; i < segments.size(); i++) {
            Segment previous = segments.get(i - 1);
            Segment current = segments.get(i);
            if (current.seq != previous.seq + 1) {
                throw new CorruptStorageException(directory.toString(), -1, "missing segment " + segmentName(previous.seq + 1) + " between "
                        + previous.path.getFileName() + " and " + current.path.getFileName());
            }
        }
        for (int i = 0; i < segments.size(); i++) {
            Segment segment = segments.get(i);
            scan(segment, i == segments.size() - 1);
            if (i > 0 && segment.baseIndex != segments.get(i - 1).lastIndex() + 1) {
                throw new CorruptStorageException(segment.path.toString(), -1, "segment starts at index " + segment.baseIndex
                        + " but " + segments.get(i - 1).path.getFileName() + " ends at index " + segments.get(i - 1).lastIndex()
                        + " (entries are missing: a segment was truncated or removed)");
            }
        }
        if (segments.isEmpty()) segments.add(createSegment(0, 1, 0));
        if (fsync) {
            // What recovery read may have been only in the page cache (a process crash before
            // fsync); make it durable before anything is reported durable on top of it.
            for (Segment segment : segments) segment.channel.force(false);
            FileIo.fsyncDirectory(directory);
        }
        firstIndex = segments.getFirst().baseIndex;
        lastIndex = segments.getLast().lastIndex();
        syncedIndex = lastIndex;
        // A segment of the format before batch headers is read but never appended to (its recovery rule knows no
        // batches): appends continue in a new segment. Its records are durable (forced above) before it exists.
        if (segments.getLast().version == SEGMENT_VERSION_RECORDS_ONLY) {
            segments.add(createSegment(segments.getLast().seq + 1, lastIndex + 1, 0));
        }
        // Map the tail now, so the first sync (on the engine's loop) does not pay for the first mapping's set-up.
        if (!fsync) segments.getLast().mappedFor(segments.getLast().writtenBytes, 0, mapWindowBytes);
    }

    private List<Path> listSegmentFiles() throws IOException {
        TreeMap<Long, Path> bySequence = new TreeMap<>();
        try (Stream<Path> entries = Files.list(directory)) {
            for (Path path : (Iterable<Path>) entries::iterator) {
                Matcher m = SEGMENT_NAME.matcher(path.getFileName().toString());
                if (m.matches() && Files.isRegularFile(path)) bySequence.put(Long.parseLong(m.group(1)), path);
            }
        }
        return new ArrayList<>(bySequence.values());
    }

    private static long sequenceOf(Path path) {
        Matcher m = SEGMENT_NAME.matcher(path.getFileName().toString());
        if (!m.matches()) throw new IllegalStateException("not a segment file: " + path);
        return Long.parseLong(m.group(1));
    }

    private String checkHeader(ByteBuffer header, long size, long sequenceFromName) {
        if (size < SEGMENT_HEADER_BYTES) return "file has " + size + " bytes, shorter than a segment header";
        if (header.getInt(0) != SEGMENT_MAGIC) return "bad magic " + Integer.toHexString(header.getInt(0));
        crc.reset();
        crc.update(header.array(), 0, SEGMENT_HEADER_BYTES - 4);
        if ((int) crc.getValue() != header.getInt(SEGMENT_HEADER_BYTES - 4)) return "header checksum mismatch";
        int version = header.getInt(4);
        if (version != SEGMENT_VERSION && version != SEGMENT_VERSION_RECORDS_ONLY) return "unsupported segment version " + version;
        if (header.getLong(12) != sequenceFromName) return "header says sequence " + header.getLong(12) + ", the file name " + sequenceFromName;
        if (header.getLong(20) < 1) return "bad first index " + header.getLong(20);
        return null;
    }

    private static boolean isTornCreation(FileChannel channel, long size) throws IOException {
        if (size <= SEGMENT_HEADER_BYTES) return true;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mapped = readWhole(channel, size, arena);
            for (long i = 0; i < size; i++) if (mapped.get(ValueLayout.JAVA_BYTE, i) != 0) return false;
            return true;
        }
    }

    private void dropSegmentsBeforeLastReset() throws IOException {
        int lastReset = -1;
        for (int i = 0; i < segments.size(); i++) if ((segments.get(i).flags & FLAG_RESET) != 0) lastReset = i;
        if (lastReset <= 0) return;
        log.warn("{}: completing an interrupted reset, removing {} obsolete segment(s) before {}",
                directory, lastReset, segments.get(lastReset).path.getFileName());
        for (int i = 0; i < lastReset; i++) {
            Segment obsolete = segments.removeFirst();
            obsolete.channel.close();
            Files.delete(obsolete.path);
        }
        if (fsync) FileIo.fsyncDirectory(directory);
    }

    /**
     * The first {@code size} bytes of a file, read into memory of {@code arena} for recovery's scan. Read, not
     * mapped: without fsync the log maps a segment's tail ahead of its data, so the file of a process that
     * crashed can end in holes, and on tmpfs touching a hole through a mapping allocates a page, which on a
     * full file system raises SIGBUS and kills the JVM during recovery (FullDiskTest with fsync off). A
     * {@code read} of a hole returns zeros without allocating; recovery then cuts them as a torn tail.
     */
    private static MemorySegment readWhole(FileChannel channel, long size, Arena arena) throws IOException {
        MemorySegment memory = arena.allocate(size, 8);
        ByteBuffer target = memory.asByteBuffer();
        long position = 0;
        while (target.hasRemaining()) {
            int n = channel.read(target, position);
            if (n < 0) throw new IOException("file ended at " + position + " of " + size + " bytes while reading it for recovery");
            position += n;
        }
        return memory;
    }

    private record Problem(String text, boolean couldBeTorn) {}

    /**
     * Reads one segment's records and decides what a bad one means: the end of a torn last batch, cut; or corruption,
     * refused with the file and offset.
     *
     * <p><b>Why cutting is safe here, and only here</b> (segments with batch headers). Cutting at a bad record can only
     * lose acknowledged entries if the bytes there were durable before the power failed. After power loss, only the
     * batch being written can be missing blocks. A batch is the records appended since the log was last clean (synced,
     * rolled, truncated, reset or recovered), opened by a header in its first write and made durable by one force; the
     * next batch's header is written only after that force returned, and a roll forces the old segment before the new
     * one exists. So at most one batch is in flight, it is the last thing in the last segment, and where its blocks did
     * not land the disk holds what was there before: the durable zeros of {@link #prepareAhead}, or nothing (the file
     * ends; segments are created new, never reused, and a truncation's cut is forced, so no older data lies past the
     * data). Its blocks may land in any order: a later block without an earlier one, the header without the middle.
     *
     * <p>Every batch header claims how far the log was durable when it was written (its durable index: the synced
     * index then, which only a completed force advances). That claim is the evidence. Let P be the first bad byte (a
     * record or header that fails its checks) and E the index of the entry whose bytes (or whose batch's header) lie
     * there. If a valid header after P claims E or more durable, the bytes at P were forced before that header was
     * written: damage to synced data, refused, never cut. Every batch synced after the one holding P has such a header,
     * durable with it, so a bad record followed by any later synced batch is always refused. If no header after P
     * claims E, no later batch was synced, so P lies in the last synced batch or in the batch in flight; the power
     * loss can only have damaged the batch in flight (its own header, if it landed, lies at or before P, or claims less
     * than E), so P is the first byte of it that did not land, and cutting from P drops only entries that were never
     * reported durable. The valid front of that batch is kept, as a process crash would have kept all of it. The rule
     * does not depend on one batch in flight: with more, each header still claims only what was synced when it was
     * written. What it cannot see: damage to the last synced batch with no later batch that landed to claim it
     * looks exactly like that batch torn, and is cut (as a bad checksum at the very end always was).
     *
     * <p>Segments of the format before batch headers ({@link #SEGMENT_VERSION_RECORDS_ONLY}) keep the old rule: a bad
     * record is cut only if no valid record follows it at all (they are only ever the last segment on the first
     * open after an upgrade, written by the old code, whose power-loss behaviour they keep).
     */
    private void scan(Segment segment, boolean last) throws IOException {
        long size = segment.channel.size();
        long position = SEGMENT_HEADER_BYTES;
        boolean batches = segment.version != SEGMENT_VERSION_RECORDS_ONLY;
        Problem problem = null;
        long openedAt = -1; // the offset of the batch header just read while no record of its batch follows yet
        String notTorn = null; // with a problem in the last segment: what shows it is not a torn tail
        if (size > position) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment mapped = readWhole(segment.channel, size, arena);
                long expected = segment.baseIndex;
                while (position < size) {
                    // A segment's data opens with a batch header; later a negative length field marks one.
                    if (batches && (position == SEGMENT_HEADER_BYTES || mapped.get(INT, position) < 0)) {
                        problem = checkBatchHeader(mapped, position, size, expected, openedAt >= 0);
                        if (problem != null) break;
                        openedAt = position;
                        position += BATCH_HEADER_BYTES;
                        continue;
                    }
                    problem = checkRecord(mapped, position, size, expected);
                    if (problem != null) break;
                    segment.addRecord(position, openedAt >= 0);
                    openedAt = -1;
                    position += RECORD_HEADER_BYTES + mapped.get(INT, position);
                    expected++;
                }
                if (problem == null && openedAt >= 0) {
                    problem = new Problem("a batch header with no record after it at the end of the file", true);
                    position = openedAt;
                    openedAt = -1;
                }
                if (problem != null && last && problem.couldBeTorn()) {
                    notTorn = batches ? laterDurableClaim(mapped, position + 1, size, expected) : laterValidRecord(mapped, position + 1, size, expected);
                }
            }
        }
        if (problem != null) {
            String where = segment.path.toString();
            if (!last) {
                throw new CorruptStorageException(where, position, problem.text() + "; later segments exist, so this is not a torn tail");
            }
            if (!problem.couldBeTorn()) throw new CorruptStorageException(where, position, problem.text());
            if (notTorn != null) throw new CorruptStorageException(where, position, problem.text() + "; " + notTorn + ", so this is not a torn tail");
            long cut = openedAt >= 0 ? openedAt : position; // a header whose batch has no valid record goes too
            log.warn("{}: cutting a torn tail of {} bytes at offset {} ({} at offset {})", where, size - cut, cut, problem.text(), position);
            segment.channel.truncate(cut);
            if (fsync) segment.channel.force(false);
            position = cut;
        }
        segment.size = segment.writtenBytes = segment.fileBytes = position;
    }

    private Problem checkBatchHeader(MemorySegment mapped, long position, long size, long expectedIndex, boolean afterHeader) {
        long remaining = size - position;
        if (remaining < BATCH_HEADER_BYTES) return new Problem("partial batch header (" + remaining + " bytes at end of file)", true);
        int magic = mapped.get(INT, position);
        if (magic != BATCH_MAGIC) return new Problem("no batch header where a batch must start (found " + Integer.toHexString(magic) + ")", true);
        int stored = mapped.get(INT, position + 4);
        int computed = batchHeaderCrc(mapped.asSlice(position, BATCH_HEADER_BYTES).asByteBuffer());
        if (stored != computed) {
            return new Problem("batch header checksum mismatch (stored " + Integer.toHexString(stored) + ", computed " + Integer.toHexString(computed) + ")", true);
        }
        // A header with a valid checksum is never a torn write: something wrote the wrong data.
        long first = mapped.get(LONG, position + 8);
        long durable = mapped.get(LONG, position + 16);
        if (first != expectedIndex) return new Problem("batch header says its first index is " + first + " where " + expectedIndex + " was expected", false);
        if (durable < 0 || durable >= first) return new Problem("batch header claims index " + durable + " durable before its own first index " + first, false);
        if (afterHeader) return new Problem("two batch headers with no record between them", false);
        return null;
    }

    private Problem checkRecord(MemorySegment mapped, long position, long size, long expectedIndex) {
        long remaining = size - position;
        if (remaining < RECORD_HEADER_BYTES) return new Problem("partial record header (" + remaining + " bytes at end of file)", true);
        int length = mapped.get(INT, position);
        if (length < 0 || length > MAX_PAYLOAD_BYTES || length > remaining - RECORD_HEADER_BYTES) {
            return new Problem("record length " + length + " runs past the end of the file ("
                    + (remaining - RECORD_HEADER_BYTES) + " bytes left)", true);
        }
        int stored = mapped.get(INT, position + 4);
        int computed = recordCrc(mapped.asSlice(position, RECORD_HEADER_BYTES + length).asByteBuffer());
        if (stored != computed) {
            return new Problem("checksum mismatch (stored " + Integer.toHexString(stored) + ", computed " + Integer.toHexString(computed) + ")", true);
        }
        long index = mapped.get(LONG, position + 8);
        if (index != expectedIndex) {
            // A record with a valid checksum is never a torn write: something wrote the wrong data.
            return new Problem("record carries index " + index + " where " + expectedIndex + " was expected", false);
        }
        return null;
    }

    /**
     * A batch header at or after {@code from} whose checksum holds and that claims {@code expectedIndex} (the entry at the
     * bad record) durable, as the reason a bad record there is not a torn tail; null if there is none ({@link #scan}).
     */
    private String laterDurableClaim(MemorySegment mapped, long from, long size, long expectedIndex) {
        for (long at = from; at + BATCH_HEADER_BYTES <= size; at++) {
            if (mapped.get(INT, at) != BATCH_MAGIC || mapped.get(LONG, at + 16) < expectedIndex) continue;
            if (batchHeaderCrc(mapped.asSlice(at, BATCH_HEADER_BYTES).asByteBuffer()) != mapped.get(INT, at + 4)) continue;
            return "the batch header at offset " + at + " says entries up to " + mapped.get(LONG, at + 16) + " were durable before it was written";
        }
        return null;
    }

    /**
     * Segments without batch headers: a checksum-valid record at or after {@code from} that could belong to this log, as
     * the reason a bad record there is not a torn tail; null if there is none.
     */
    private String laterValidRecord(MemorySegment mapped, long from, long size, long expectedIndex) {
        long maxIndex = expectedIndex + (size - from) / RECORD_HEADER_BYTES + 1;
        for (long at = from; at + RECORD_HEADER_BYTES <= size; at++) {
            long index = mapped.get(LONG, at + 8);
            if (index < expectedIndex || index > maxIndex) continue;
            int length = mapped.get(INT, at);
            if (length < 0 || length > size - at - RECORD_HEADER_BYTES || mapped.get(LONG, at + 16) < 0) continue;
            ByteBuffer record = mapped.asSlice(at, RECORD_HEADER_BYTES + length).asByteBuffer();
            if (recordCrc(record) == mapped.get(INT, at + 4)) return "a valid record follows at offset " + at;
        }
        return null;
    }

    // ---- failure handling ----------------------------------------------------------------------

    private void checkOpen() {
        if (closed) throw new IllegalStateException("log in " + directory + " is closed");
    }

    private void checkWritable() {
        checkOpen();
        if (failure != null) {
            throw new StorageFailedException("log in " + directory + " failed earlier and accepts no more writes: " + failure.getMessage(), failure);
        }
    }

    private StorageException fail(String operation, IOException e) {
        StorageException error = StorageException.fromIOException(operation, e);
        if (failure == null) failure = error;
        return error;
    }

    private StorageException failCorrupt(CorruptStorageException e) {
        if (failure == null) failure = e;
        return e;
    }

    private void closeChannels() {
        for (Segment segment : segments) {
            try {
                segment.unmap();
                segment.channel.close();
            } catch (IOException e) {
                log.warn("closing {}: {}", segment.path, e.toString());
            }
        }
    }

    static String segmentName(long seq) {
        return String.format("log-%020d.seg", seq);
    }

    /** One segment file: its header fields and the byte offset of every record in it. */
    private static final class Segment {
        /** A flag in {@link #offsets} (offsets are below 2^31: a segment holds at most 1 GiB plus one record). */
        static final long OPENS_BATCH = 1L << 62;
        final Path path;
        final long seq;
        final long baseIndex;
        final int flags;
        /** {@link #SEGMENT_VERSION}, or {@link #SEGMENT_VERSION_RECORDS_ONLY} for a segment written before batch headers. */
        final int version;
        final FileChannel channel;
        /** The byte offset of every record, {@link #OPENS_BATCH} set where a batch header lies right in front of it. */
        long[] offsets = new long[64];
        int count;
        /** Bytes in the file itself. */
        long writtenBytes;
        /** Bytes including records still in the write buffer (only the last segment has any). */
        long size;
        /**
         * With fsync: the file's length as this log last set it, {@link #writtenBytes} plus the zeros {@link #prepareAhead}
         * wrote past them. (Without fsync the mapped window extends the file instead, and this stays at the data's end.)
         */
        long fileBytes;
        /** With fsync: whether {@link #prepareAhead} still preallocates for this segment (false after a failed attempt). */
        boolean preallocate = true;
        /** Without fsync: the mapped window of the file's tail ({@link #mappedFor}); null when there is none. */
        private MemorySegment map;
        /** The file offset {@link #map} starts at. */
        long mapFrom;

        Segment(Path path, long seq, long baseIndex, int flags, int version, FileChannel channel) {
            this.path = path;
            this.seq = seq;
            this.baseIndex = baseIndex;
            this.flags = flags;
            this.version = version;
            this.channel = channel;
        }

        long lastIndex() {
            return baseIndex + count - 1;
        }

        long offsetOf(long index) {
            return offsets[(int) (index - baseIndex)] & ~OPENS_BATCH;
        }

        /** Where the record of {@code index} starts together with the batch header in front of it, if any: where a cut goes. */
        long startOf(long index) {
            long offset = offsets[(int) (index - baseIndex)];
            return (offset & OPENS_BATCH) == 0 ? offset : (offset & ~OPENS_BATCH) - BATCH_HEADER_BYTES;
        }

        /** Where the record of {@code index} ends: the next record's start or the segment's end. */
        long endOf(long index) {
            return index < lastIndex() ? startOf(index + 1) : size;
        }

        /**
         * A writable mapping that covers {@code [position, position + bytes)} of the file: the current window if
         * it does, else a new one from {@code position}'s page for at least {@code window} bytes (mapping past
         * the end of the file extends it with zeros).
         *
         * <p>An automatic arena: a window is unmapped by the garbage collector once it is dropped. Closing a shared
         * arena at once costs a handshake with every thread (~180 us warm on this VM, 14 us for the automatic one),
         * long enough to count as a slow round and send the loop's work to the disk thread. A dropped window is never
         * touched again, so cutting or deleting its file before the collector unmaps it is safe (only an access past
         * the end of the file would fault).
         */
        MemorySegment mappedFor(long position, int bytes, long window) throws IOException {
            if (map != null && position >= mapFrom && position + bytes <= mapFrom + map.byteSize()) return map;
            map = null;
            long from = position & -PAGE_BYTES;
            long length = Math.max(window, (position + bytes - from + PAGE_BYTES - 1) & -PAGE_BYTES);
            map = channel.map(FileChannel.MapMode.READ_WRITE, from, length, Arena.ofAuto());
            mapFrom = from;
            return map;
        }

        /** Drops the window, if any (it is never touched again); true if there was one (the file may then run past {@link #writtenBytes}). */
        boolean unmap() {
            if (map == null) return false;
            map = null;
            return true;
        }

        void addRecord(long offset, boolean opensBatch) {
            if (count == offsets.length) offsets = Arrays.copyOf(offsets, count * 2);
            offsets[count++] = opensBatch ? offset | OPENS_BATCH : offset;
        }

        void truncateRecords(int keep, long cut) {
            count = keep;
            size = writtenBytes = fileBytes = cut;
        }

        /** {@code bytes} more of records are in the file. */
        void wrote(long bytes) {
            writtenBytes += bytes;
            fileBytes = Math.max(fileBytes, writtenBytes);
        }
    }
}
