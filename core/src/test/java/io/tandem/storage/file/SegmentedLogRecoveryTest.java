package io.tandem.storage.file;

import static io.tandem.storage.stable.StableStorageContract.assertIntact;
import static io.tandem.storage.stable.StableStorageContract.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.storage.CorruptStorageException;
import io.tandem.storage.FlushPolicy;
import io.tandem.storage.LogEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery of the segmented log from damaged files: a torn tail is cut, anything else is refused
 * with the file and byte offset.
 */
class SegmentedLogRecoveryTest {
    @TempDir
    Path dir;

    private SegmentedLog open() {
        return SegmentedLog.open(dir, FlushPolicy.FSYNC, 4096);
    }

    /** Writes entries 1..count (term 1), synced, and closes the log. */
    private void fill(long count) {
        try (SegmentedLog log = open()) {
            for (long i = 1; i <= count; i++) log.append(entry(i, 1));
            log.sync();
        }
    }

    private List<Path> segments() {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".seg")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes entries 1..count (term 1), synced every {@code batch} entries (so the last segment holds several batches), and closes the log. */
    private void fillInBatches(long count, int batch) {
        try (SegmentedLog log = open()) {
            for (long i = 1; i <= count; i++) {
                log.append(entry(i, 1));
                if (i % batch == 0) log.sync();
            }
            log.sync();
        }
    }

    /** Byte offsets of the batch headers in a healthy segment file (negative where a record's length would be). */
    static List<Long> batchHeaderOffsets(Path segment) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(Files.readAllBytes(segment));
        List<Long> offsets = new ArrayList<>();
        for (int at = SegmentedLog.SEGMENT_HEADER_BYTES; at < buffer.limit(); ) {
            if (buffer.getInt(at) < 0) offsets.add((long) at);
            at += buffer.getInt(at) < 0 ? SegmentedLog.BATCH_HEADER_BYTES : SegmentedLog.RECORD_HEADER_BYTES + buffer.getInt(at);
        }
        return offsets;
    }

    /** Byte offsets of the records in a healthy segment file (batch headers skipped). */
    static List<Long> recordOffsets(Path segment) throws IOException {
        return recordOffsets(Files.readAllBytes(segment), SegmentedLog.SEGMENT_HEADER_BYTES);
    }

    /** Offsets of the records from {@code from} on in a healthy segment's bytes (batch headers, negative where a length would be, skipped). */
    static List<Long> recordOffsets(byte[] bytes, long from) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        List<Long> offsets = new ArrayList<>();
        for (int at = (int) from; at < bytes.length; ) {
            if (buffer.getInt(at) < 0) {
                at += SegmentedLog.BATCH_HEADER_BYTES;
                continue;
            }
            offsets.add((long) at);
            at += SegmentedLog.RECORD_HEADER_BYTES + buffer.getInt(at);
        }
        return offsets;
    }

    private static void flipByte(Path file, long offset) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, offset);
            one.put(0, (byte) (one.get(0) ^ 0x5A)).rewind();
            channel.write(one, offset);
        }
    }

    private static void truncate(Path file, long size) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        }
    }

    private static void appendBytes(Path file, byte[] bytes) throws IOException {
        Files.write(file, bytes, StandardOpenOption.APPEND);
    }

    private void assertRefused(Path file, long offset, String detail) {
        assertThatThrownBy(this::open)
                .isInstanceOfSatisfying(CorruptStorageException.class, e -> {
                    assertThat(e.location()).isEqualTo(file.toAbsolutePath().toString());
                    assertThat(e.offset()).isEqualTo(offset);
                })
                .hasMessageContaining(file.getFileName().toString())
                .hasMessageContaining("byte offset " + offset)
                .hasMessageContaining(detail);
    }

    // ---- torn tails: cut, and the log goes on ---------------------------------------------------

    @Test
    void aPartialLastRecordIsCutAndAppendingContinues() throws IOException {
        fill(200);
        Path last = segments().getLast();
        long lastRecord = recordOffsets(last).getLast();
        truncate(last, Files.size(last) - 3);
        try (SegmentedLog log = open()) {
            assertThat(log.lastIndex()).isEqualTo(199);
            assertThat(Files.size(last)).isEqualTo(lastRecord);
            assertIntact(log, 1, 199, 1);
            log.append(entry(200, 2));
            log.sync();
        }
        try (SegmentedLog log = open()) {
            assertThat(log.lastIndex()).isEqualTo(200);
            assertIntact(log, 200, 200, 2);
        }
    }

    @Test
    void aPartialRecordHeaderIsCut() throws IOException {
        fill(50);
        Path last = segments().getLast();
        long size = Files.size(last);
        appendBytes(last, new byte[] {0, 0, 0, 40, 1, 2, 3});
        try (SegmentedLog log = open()) {
            assertThat(log.lastIndex()).isEqualTo(50);
        }
        assertThat(Files.size(last)).isEqualTo(size);
    }

    @Test
    void aZeroFilledTailIsCut() throws IOException {
        fill(120);
        Path last = segments().getLast();
        long size = Files.size(last);
        appendBytes(last, new byte[8192]);
        try (SegmentedLog log = open()) {
            assertThat(log.lastIndex()).isEqualTo(120);
            assertIntact(log, 1, 120, 1);
        }
        assertThat(Files.size(last)).isEqualTo(size);
    }

    @Test
    void aBadChecksumInTheVeryLastRecordIsCut() throws IOException {
        fill(120);
        Path last = segments().getLast();
        long lastRecord = recordOffsets(last).getLast();
        flipByte(last, lastRecord + 10); // inside the index field: the checksum no longer matches
        try (SegmentedLog log = open()) {
            assertThat(log.lastIndex()).isEqualTo(119);
            assertIntact(log, 1, 119, 1);
        }
    }

    @Test
    void aTruncatedLastSegmentLosesOnlyItsTail() throws IOException {
        fill(200);
        Path last = segments().getLast();
        List<Long> offsets = recordOffsets(last);
        assertThat(offsets).hasSizeGreaterThan(2);
        truncate(last, offsets.get(1) + 7);
        try (SegmentedLog log = open()) {
            long firstInLastSegment = 200 - offsets.size() + 1;
            assertThat(log.lastIndex()).isEqualTo(firstInLastSegment);
            assertIntact(log, 1, firstInLastSegment, 1);
            assertThat(Files.size(last)).isEqualTo(offsets.get(1));
        }
    }

    @Test
    void anInterruptedSegmentCreationIsRemoved() throws IOException {
        fill(100);
        int before = segments().size();
        Path torn = dir.resolve(SegmentedLog.segmentName(before)); // the next sequence number
        Files.write(torn, new byte[SegmentedLog.SEGMENT_HEADER_BYTES]); // header never reached the disk
        try (SegmentedLog log = open()) {
            assertThat(torn).doesNotExist();
            assertThat(log.segmentCount()).isEqualTo(before);
            assertThat(log.lastIndex()).isEqualTo(100);
            log.append(entry(101, 1));
            log.sync();
        }
        try (SegmentedLog log = open()) {
            assertThat(log.lastIndex()).isEqualTo(101);
        }
    }

    @Test
    void anInterruptedResetCompletesOnRecovery() throws IOException {
        fill(100);
        List<Path> old = segments();
        long nextSequence = old.size();
        writeSegmentHeader(dir.resolve(SegmentedLog.segmentName(nextSequence)), nextSequence, 1001, SegmentedLog.FLAG_RESET);
        try (SegmentedLog log = open()) {
            assertThat(log.firstIndex()).isEqualTo(1001);
            assertThat(log.lastIndex()).isEqualTo(1000);
            assertThat(log.segmentCount()).isEqualTo(1);
        }
        assertThat(old).allSatisfy(p -> assertThat(p).doesNotExist());
    }

    @Test
    void missingOldestSegmentsLookLikeCompaction() throws IOException {
        fill(200);
        List<Path> files = segments();
        Files.delete(files.get(0));
        Files.delete(files.get(1));
        try (SegmentedLog log = open()) {
            assertThat(log.firstIndex()).isGreaterThan(1);
            assertThat(log.lastIndex()).isEqualTo(200);
            assertIntact(log, log.firstIndex(), 200, 1);
        }
    }

    // ---- real corruption: refused with file and offset -----------------------------------------

    @Test
    void aCorruptRecordFollowedByALaterBatchIsRefused() throws IOException {
        fillInBatches(200, 2);
        Path last = segments().getLast();
        long lastHeader = batchHeaderOffsets(last).getLast();
        List<Long> before = recordOffsets(last).stream().filter(at -> at < lastHeader).toList();
        assertThat(before).isNotEmpty();
        long victim = before.getLast(); // in a synced batch; the last batch was synced after it
        flipByte(last, victim + SegmentedLog.RECORD_HEADER_BYTES - 1); // last byte of the term field
        assertRefused(last, victim, "were durable before it was written, so this is not a torn tail");
    }

    @Test
    void aCorruptLengthInTheMiddleIsRefused() throws IOException {
        fillInBatches(200, 2);
        Path last = segments().getLast();
        long victim = recordOffsets(last).getFirst();
        flipByte(last, victim); // the high byte of the length: it now runs past the end of the file
        assertRefused(last, victim, "so this is not a torn tail");
    }

    /**
     * The same damage in the last batch is cut instead: with nothing after it to claim it durable, it cannot be told from
     * that batch torn by a power loss while it was written (SegmentedLogPowerLossTest); the batches before it are intact.
     */
    @Test
    void aCorruptRecordInTheLastBatchIsCutWithTheRestOfThatBatch() throws IOException {
        fillInBatches(200, 4);
        Path last = segments().getLast();
        List<Long> offsets = recordOffsets(last);
        long lastHeader = batchHeaderOffsets(last).getLast();
        List<Long> lastBatch = offsets.stream().filter(at -> at > lastHeader).toList();
        assertThat(lastBatch).hasSizeGreaterThan(1);
        flipByte(last, lastBatch.getFirst() + SegmentedLog.RECORD_HEADER_BYTES - 1); // valid records of the batch follow it
        long kept = 200 - lastBatch.size();
        try (SegmentedLog log = open()) {
            assertThat(log.lastIndex()).isEqualTo(kept);
            assertIntact(log, 1, kept, 1);
        }
        assertThat(Files.size(last)).as("the batch goes with its header").isEqualTo(lastHeader);
    }

    @Test
    void corruptionInAnEarlierSegmentIsRefusedEvenAtItsEnd() throws IOException {
        fill(200);
        Path first = segments().getFirst();
        long victim = recordOffsets(first).getLast();
        flipByte(first, Files.size(first) - 1); // the last payload byte of the segment's last record
        assertRefused(first, victim, "later segments exist");
    }

    @Test
    void aTruncatedEarlierSegmentIsRefused() throws IOException {
        fill(200);
        Path second = segments().get(1);
        long lastRecord = recordOffsets(second).getLast();
        truncate(second, Files.size(second) - 2);
        assertRefused(second, lastRecord, "later segments exist");
    }

    @Test
    void anEarlierSegmentCutAtARecordBoundaryIsRefusedAsAGap() throws IOException {
        fill(200);
        List<Path> files = segments();
        truncate(files.get(1), recordOffsets(files.get(1)).getLast());
        assertThatThrownBy(this::open).isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining(files.get(2).getFileName().toString())
                .hasMessageContaining("entries are missing");
    }

    @Test
    void aMissingSegmentInTheMiddleIsRefused() throws IOException {
        fill(200);
        List<Path> files = segments();
        assertThat(files).hasSizeGreaterThan(3);
        Files.delete(files.get(2));
        assertThatThrownBy(this::open).isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining("missing segment " + files.get(2).getFileName())
                .hasMessageContaining(files.get(1).getFileName().toString())
                .hasMessageContaining(files.get(3).getFileName().toString());
    }

    @Test
    void aDamagedHeaderOfAnEarlierSegmentIsRefused() throws IOException {
        fill(200);
        Path first = segments().getFirst();
        flipByte(first, 20);
        assertRefused(first, 0, "bad segment header");
    }

    @Test
    void aRecordWithAValidChecksumButTheWrongIndexIsRefused() throws IOException {
        fill(60);
        Path last = segments().getLast();
        long lastRecord = recordOffsets(last).getLast();
        byte[] bytes = Files.readAllBytes(last);
        long size = bytes.length;
        appendBytes(last, java.util.Arrays.copyOfRange(bytes, (int) lastRecord, bytes.length)); // a duplicate of the last record
        assertRefused(last, size, "carries index");
    }

    @Test
    void aRecordDamagedAfterOpenIsDetectedWhenRead() throws IOException {
        fill(100);
        try (SegmentedLog log = open()) {
            Path first = segments().getFirst();
            long victim = recordOffsets(first).get(3);
            flipByte(first, victim + SegmentedLog.RECORD_HEADER_BYTES - 1);
            assertThatThrownBy(() -> log.entry(4)).isInstanceOf(CorruptStorageException.class).hasMessageContaining("byte offset " + victim);
            LogEntry fine = log.entry(5);
            assertThat(fine.index()).isEqualTo(5);
        }
    }

    private static void writeSegmentHeader(Path path, long seq, long baseIndex, int flags) throws IOException {
        Files.write(path, segmentHeader(seq, baseIndex, flags, SegmentedLog.SEGMENT_VERSION));
    }

    private static byte[] segmentHeader(long seq, long baseIndex, int flags, int version) {
        ByteBuffer header = ByteBuffer.allocate(SegmentedLog.SEGMENT_HEADER_BYTES);
        header.putInt(SegmentedLog.SEGMENT_MAGIC).putInt(version).putInt(flags).putLong(seq).putLong(baseIndex);
        CRC32C crc = new CRC32C();
        crc.update(header.array(), 0, SegmentedLog.SEGMENT_HEADER_BYTES - 4);
        header.putInt((int) crc.getValue());
        return header.array();
    }

    // ---- segments of the format before batch headers (version 1, up to session 21) -----------------

    /** A version-1 segment file as the code before batch headers wrote it: its header, then entries first..last (term 1) back to back. */
    private static Path writeVersion1Segment(Path dir, long seq, long first, long last) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(segmentHeader(seq, first, 0, SegmentedLog.SEGMENT_VERSION_RECORDS_ONLY));
        for (long i = first; i <= last; i++) {
            LogEntry e = entry(i, 1);
            ByteBuffer record = ByteBuffer.allocate(SegmentedLog.RECORD_HEADER_BYTES + e.payload().length);
            record.putInt(e.payload().length).putInt(0).putLong(i).putLong(1).put(e.payload());
            CRC32C crc = new CRC32C();
            crc.update(record.array(), 0, 4);
            crc.update(record.array(), 8, record.capacity() - 8);
            record.putInt(4, (int) crc.getValue());
            out.write(record.array());
        }
        Path path = dir.resolve(SegmentedLog.segmentName(seq));
        Files.write(path, out.toByteArray());
        return path;
    }

    @Test
    void aLogWrittenBeforeBatchHeadersOpensAndContinuesInANewSegment() throws IOException {
        Path first = writeVersion1Segment(dir, 0, 1, 30);
        Path second = writeVersion1Segment(dir, 1, 31, 50);
        byte[] secondBefore = Files.readAllBytes(second);
        try (SegmentedLog log = open()) {
            assertThat(log.firstIndex()).isEqualTo(1);
            assertThat(log.lastIndex()).isEqualTo(50);
            assertIntact(log, 1, 50, 1);
            assertThat(log.segmentCount()).as("appends go to a new segment of the current version").isEqualTo(3);
            log.append(entry(51, 2));
            log.sync();
        }
        assertThat(Files.readAllBytes(second)).as("an old segment is never appended to").isEqualTo(secondBefore);
        try (SegmentedLog log = open()) {
            assertIntact(log, 1, 50, 1);
            assertIntact(log, 51, 51, 2);
            log.truncateSuffix(40); // a truncation into an old segment cuts it and deletes the new one
            log.append(entry(40, 3));
            log.sync();
        }
        try (SegmentedLog log = open()) {
            assertThat(log.lastIndex()).isEqualTo(40);
            assertIntact(log, 1, 39, 1);
            assertIntact(log, 40, 40, 3);
        }
        assertThat(first).exists();
    }

    @Test
    void anOldSegmentKeepsTheOldRule() throws IOException {
        Path old = writeVersion1Segment(dir, 0, 1, 30);
        long size = Files.size(old);
        appendBytes(old, new byte[8192]);
        try (SegmentedLog log = open()) { // a zero tail is cut
            assertThat(log.lastIndex()).isEqualTo(30);
        }
        assertThat(Files.size(old)).isEqualTo(size);
        for (Path p : segments()) Files.delete(p);
        old = writeVersion1Segment(dir, 0, 1, 30);
        long victim = recordOffsets(old).get(10);
        flipByte(old, victim + SegmentedLog.RECORD_HEADER_BYTES - 1);
        assertRefused(old, victim, "a valid record follows"); // a bad record followed by a valid one: refused as before
    }

    /**
     * Without fsync the log writes through a mapping that runs past its data (raft19). A process that dies without
     * closing leaves the zero-filled rest of that window behind: recovery keeps every synced entry and cuts the zeros.
     * Rolled and cleanly closed segments end exactly at their data, so only the last one ever has such a tail.
     */
    @Test
    void withoutFsyncTheMappedTailIsCutAfterACrashAndTrimmedOnRollAndClose() throws IOException {
        SegmentedLog crashed = SegmentedLog.open(dir, FlushPolicy.NO_FSYNC, 4096);
        for (long i = 1; i <= 100; i++) crashed.append(entry(i, 1));
        crashed.sync();
        List<Path> files = segments();
        assertThat(files).hasSizeGreaterThan(1);
        for (Path earlier : files.subList(0, files.size() - 1)) {
            long data = recordOffsets(earlier).getLast() + SegmentedLog.RECORD_HEADER_BYTES + ByteBuffer.wrap(Files.readAllBytes(earlier))
                    .getInt(recordOffsets(earlier).getLast().intValue());
            assertThat(Files.size(earlier)).as("a rolled segment ends at its data: %s", earlier).isEqualTo(data);
        }
        assertThat(Files.size(files.getLast())).as("the active segment is mapped past its data").isGreaterThanOrEqualTo(SegmentedLog.MIN_MAP_WINDOW_BYTES);
        // No close: the process "died". A second instance recovers from what the page cache holds.
        try (SegmentedLog recovered = SegmentedLog.open(dir, FlushPolicy.NO_FSYNC, 4096)) {
            assertIntact(recovered, 1, 100, 1);
            recovered.append(entry(101, 2));
            recovered.sync();
        }
        Path last = segments().getLast();
        assertThat(Files.size(last)).as("a clean close trims the window's zeros").isLessThan(4096L + 200);
        try (SegmentedLog reopened = open()) {
            assertIntact(reopened, 1, 100, 1);
            assertThat(reopened.entry(101).term()).isEqualTo(2);
        }
    }

    /** Where a segment's records end: the first place that holds no record (its index field is 0), or the file's end. */
    private static long dataEnd(Path segment) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(Files.readAllBytes(segment));
        int at = SegmentedLog.SEGMENT_HEADER_BYTES;
        while (at + SegmentedLog.RECORD_HEADER_BYTES <= buffer.limit() && buffer.getLong(at + 8) != 0) {
            at += buffer.getInt(at) < 0 ? SegmentedLog.BATCH_HEADER_BYTES : SegmentedLog.RECORD_HEADER_BYTES + buffer.getInt(at);
        }
        return at;
    }

    /**
     * With fsync the active segment keeps durable zeros ahead of its data (fsync21), up to its size, so that a sync
     * overwrites blocks the file already has. A process that dies leaves them as a zero tail: recovery keeps every
     * synced entry and cuts them. A roll, a truncation and a clean close cut them too, so earlier segments end exactly
     * at their data (recovery refuses a bad record there).
     */
    @Test
    void withFsyncThePreallocatedZerosAreCutAfterACrashAndOnRollTruncationAndClose() throws IOException {
        SegmentedLog crashed = SegmentedLog.open(dir, FlushPolicy.FSYNC, 8192);
        for (long i = 1; i <= 100; i++) {
            crashed.append(entry(i, 1));
            if (i % 10 == 0) {
                crashed.sync();
                crashed.prepareAhead();
            }
        }
        List<Path> files = segments();
        assertThat(files).hasSizeGreaterThan(1);
        for (Path earlier : files.subList(0, files.size() - 1)) {
            assertThat(Files.size(earlier)).as("a rolled segment ends at its data: %s", earlier).isEqualTo(dataEnd(earlier));
        }
        Path last = files.getLast();
        assertThat(Files.size(last)).as("zeros up to the segment's size").isEqualTo(8192).isGreaterThan(dataEnd(last));
        // No close: the process "died". A second instance recovers from what is on disk.
        try (SegmentedLog recovered = SegmentedLog.open(dir, FlushPolicy.FSYNC, 8192)) {
            assertIntact(recovered, 1, 100, 1);
            assertThat(Files.size(last)).as("recovery cut the zeros").isEqualTo(dataEnd(last));
            recovered.prepareAhead();
            assertThat(Files.size(last)).isEqualTo(8192);
            recovered.truncateSuffix(98);
            assertThat(Files.size(last)).as("a truncation takes the zeros with it").isEqualTo(dataEnd(last));
            recovered.prepareAhead();
            recovered.append(entry(98, 2));
            recovered.sync();
        }
        assertThat(Files.size(last)).as("a clean close cuts the zeros").isEqualTo(dataEnd(last));
        try (SegmentedLog reopened = open()) {
            assertIntact(reopened, 1, 97, 1);
            assertThat(reopened.lastIndex()).isEqualTo(98);
            assertThat(reopened.entry(98).term()).isEqualTo(2);
        }
    }

    /** In a large segment the zeros run {@code PREALLOCATE_AHEAD_BYTES} past the data and are renewed only below the low water. */
    @Test
    void withFsyncZerosAreKeptBetweenTheLowWaterAndTheAheadMark() throws IOException {
        try (SegmentedLog log = SegmentedLog.open(dir, FlushPolicy.FSYNC, 64L << 20)) {
            log.append(entry(1, 1));
            log.sync();
            log.prepareAhead();
            Path segment = segments().getLast();
            long data = dataEnd(segment);
            assertThat(Files.size(segment)).isEqualTo(data + SegmentedLog.PREALLOCATE_AHEAD_BYTES);
            long index = 2;
            long fileEnd = data + SegmentedLog.PREALLOCATE_AHEAD_BYTES;
            while (true) {
                for (int k = 0; k < 300; k++) log.append(entry(index++, 1));
                log.sync();
                log.prepareAhead();
                long written = dataEnd(segment);
                if (fileEnd - written >= SegmentedLog.PREALLOCATE_LOW_WATER_BYTES) {
                    assertThat(Files.size(segment)).as("at or above the low water nothing is added").isEqualTo(fileEnd);
                    continue;
                }
                assertThat(Files.size(segment)).as("below it the zeros run ahead again").isEqualTo(written + SegmentedLog.PREALLOCATE_AHEAD_BYTES);
                break;
            }
            assertIntact(log, 1, index - 1, 1);
        }
    }
}
