package io.tandem.storage.file;

import static io.tandem.storage.stable.StableStorageContract.assertIntact;
import static io.tandem.storage.stable.StableStorageContract.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.storage.CorruptStorageException;
import io.tandem.storage.FlushPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power loss while a batch is being written, with fsync and the preallocated zeros ahead of the data (fsync21): the
 * batch's blocks may reach the disk in any order, and where one did not land the disk still holds the zeros that were
 * there. Each test writes synced batches, then one more batch in full, keeps that image, and then builds from it the
 * files a power loss could leave (chosen blocks or sectors of the last batch back to zeros) and recovers each: the torn
 * batch is cut from its first damaged record, every synced batch is intact, and the log goes on. The same damage in a
 * synced batch, with later batches after it, is refused. Deterministic; no real power is lost.
 */
class SegmentedLogPowerLossTest {
    private static final int BLOCK = 4096;
    private static final int SECTOR = 512;
    /** The preallocated zeros left past the batch in flight (less than {@code prepareAhead} keeps; enough to be read). */
    private static final int ZEROS_AFTER = 64 << 10;

    @TempDir
    Path dir;

    /** The last segment as it was once the batch in flight had been written in full, and where that batch starts in it. */
    private record Image(Path file, byte[] bytes, long batchStart, long firstInFlight, Map<Path, byte[]> allFiles) {}

    private SegmentedLog open(long segmentBytes) {
        return SegmentedLog.open(dir, FlushPolicy.FSYNC, segmentBytes);
    }

    private List<Path> segments() {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".seg")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Entries 1..synced in synced batches of {@code batch}, each followed by {@code prepareAhead} as the disk thread does,
     * then entries synced+1..synced+inFlight as one batch, written in full. Between the two the log is closed (which cuts
     * the zeros, so the file's size is where the batch in flight starts) and reopened with fresh zeros ahead.
     */
    private Image write(long segmentBytes, long synced, long inFlight, int batch) throws IOException {
        try (SegmentedLog log = open(segmentBytes)) {
            for (long i = 1; i <= synced; i++) {
                log.append(entry(i, 1));
                if (i % batch == 0) {
                    log.sync();
                    log.prepareAhead();
                }
            }
            log.sync();
        }
        Path before = segments().getLast();
        long dataEnd = Files.size(before);
        try (SegmentedLog log = open(segmentBytes)) {
            log.prepareAhead();
            for (long i = synced + 1; i <= synced + inFlight; i++) log.append(entry(i, 1));
            log.sync();
        }
        Path file = segments().getLast();
        // If the batch rolled into new segments, the roll forced everything before the last one: only its data can be torn.
        long batchStart = file.equals(before) ? dataEnd : SegmentedLog.SEGMENT_HEADER_BYTES;
        long firstInFlight = synced + 1;
        if (!file.equals(before)) firstInFlight = synced + inFlight - SegmentedLogRecoveryTest.recordOffsets(Files.readAllBytes(file), batchStart).size() + 1;
        Map<Path, byte[]> all = new LinkedHashMap<>();
        for (Path p : segments()) all.put(p, Files.readAllBytes(p));
        return new Image(file, Files.readAllBytes(file), batchStart, firstInFlight, all);
    }

    /** Puts every segment back as the image has it, then the last one as a power loss could leave it: {@code lost} bytes of the batch zero, zeros after. */
    private void powerLoss(Image image, LongPredicate lost) throws IOException {
        for (Path p : segments()) Files.delete(p);
        for (Map.Entry<Path, byte[]> e : image.allFiles().entrySet()) Files.write(e.getKey(), e.getValue());
        byte[] disk = Arrays.copyOf(image.bytes(), image.bytes().length + ZEROS_AFTER);
        for (int at = (int) image.batchStart(); at < image.bytes().length; at++) if (lost.test(at)) disk[at] = 0;
        Files.write(image.file(), disk);
    }

    /**
     * Recovers after {@code lost} and checks the outcome: every entry before the batch in flight intact, and of that batch
     * exactly the records before its first damaged byte (a lost byte that was not zero), none if its header was damaged;
     * the file ends where they end; the log takes new appends and reopens with them.
     */
    private void recoverAndCheck(Image image, LongPredicate lost, String what) throws IOException {
        powerLoss(image, lost);
        long firstDamage = image.bytes().length;
        for (int at = (int) image.batchStart(); at < image.bytes().length; at++) {
            if (lost.test(at) && image.bytes()[at] != 0) {
                firstDamage = at;
                break;
            }
        }
        List<Long> records = SegmentedLogRecoveryTest.recordOffsets(image.bytes(), image.batchStart());
        long keptRecords = 0;
        long end = image.batchStart();
        ByteBuffer bytes = ByteBuffer.wrap(image.bytes());
        for (long at : records) {
            long recordEnd = at + SegmentedLog.RECORD_HEADER_BYTES + bytes.getInt((int) at);
            if (recordEnd > firstDamage) break;
            keptRecords++;
            end = recordEnd;
        }
        long expectedLast = image.firstInFlight() - 1 + keptRecords;
        long segmentBytes = Math.max(1L << 20, image.bytes().length + ZEROS_AFTER);
        try (SegmentedLog log = open(segmentBytes)) {
            assertThat(log.lastIndex()).as("%s: entries kept", what).isEqualTo(expectedLast);
            assertIntact(log, 1, expectedLast, 1);
            assertThat(Files.size(image.file())).as("%s: the file ends at the kept data", what).isEqualTo(end);
            log.append(entry(expectedLast + 1, 2));
            log.sync();
        }
        try (SegmentedLog log = open(segmentBytes)) {
            assertIntact(log, 1, expectedLast, 1);
            assertIntact(log, expectedLast + 1, expectedLast + 1, 2);
        }
    }

    private static long firstBlock(Image image) {
        return image.batchStart() / BLOCK;
    }

    private static long lastBlock(Image image) {
        return (image.bytes().length - 1) / BLOCK;
    }

    @Test
    void anyOneBlockOfTheLastBatchLostIsCutFromThere() throws IOException {
        Image image = write(1L << 20, 60, 120, 10);
        assertThat(lastBlock(image) - firstBlock(image)).as("the batch spans several blocks").isGreaterThanOrEqualTo(4);
        for (long k = firstBlock(image); k <= lastBlock(image); k++) {
            long block = k;
            // The first block holds the batch header: lost, nothing of the batch is kept though every later block landed.
            recoverAndCheck(image, at -> at / BLOCK == block, "block " + block + " lost");
        }
    }

    @Test
    void onlyOneBlockOfTheLastBatchLandedIsCutFromTheFirstMissingOne() throws IOException {
        Image image = write(1L << 20, 60, 120, 10);
        for (long k = firstBlock(image); k <= lastBlock(image); k++) {
            long block = k;
            recoverAndCheck(image, at -> at / BLOCK != block, "only block " + block + " landed");
        }
    }

    @Test
    void theHeaderAndTheLastBlockLandedTheMiddleDidNot() throws IOException {
        Image image = write(1L << 20, 60, 120, 10);
        long first = firstBlock(image);
        long last = lastBlock(image);
        recoverAndCheck(image, at -> at / BLOCK != first && at / BLOCK != last, "the middle lost");
    }

    @Test
    void anyOneSectorOfTheLastBatchLostIsCutFromThere() throws IOException {
        // Sectors split records and the batch header at arbitrary places: the damage starts inside a record or header.
        Image image = write(1L << 20, 60, 120, 10);
        for (long s = image.batchStart() / SECTOR; s <= (image.bytes().length - 1) / SECTOR; s++) {
            long sector = s;
            recoverAndCheck(image, at -> at / SECTOR == sector, "sector " + sector + " lost");
        }
        recoverAndCheck(image, at -> at >= image.batchStart() + 10 && at < image.batchStart() + 40, "the header's end and the first record's start lost");
    }

    /** A batch larger than the 1 MiB write buffer reaches the file in several writes under one header: one batch all the same. */
    @Test
    void aBatchWrittenInSeveralWritesIsOneBatch() throws IOException {
        Image image = write(8L << 20, 60, 12_000, 10);
        assertThat(image.bytes().length - image.batchStart()).isGreaterThan(1L << 20);
        long middleOfSecondWrite = (image.batchStart() + (1 << 20) + (1 << 19)) / BLOCK;
        recoverAndCheck(image, at -> at / BLOCK == middleOfSecondWrite, "a block of the second write lost");
        recoverAndCheck(image, at -> at / BLOCK == firstBlock(image), "the header's block lost, the second write landed");
    }

    /**
     * A batch that rolls into a new segment: the roll forced the old segment before the new one existed, so only the new
     * segment's part can be torn, and that part is cut; the same damage in the old segment's part (synced) is refused.
     */
    @Test
    void aBatchSpanningASegmentBoundaryIsCutInTheLastSegmentOnly() throws IOException {
        Image image = write(16384, 30, 150, 5);
        List<Path> files = segments();
        assertThat(image.file()).isEqualTo(files.getLast());
        assertThat(image.firstInFlight()).as("the batch began in an earlier segment").isGreaterThan(31);
        for (long k = firstBlock(image); k <= lastBlock(image); k++) {
            long block = k;
            recoverAndCheck(image, at -> at / BLOCK == block, "block " + block + " of the last segment lost");
        }
        powerLoss(image, at -> false);
        Path previous = files.get(files.size() - 2);
        byte[] old = image.allFiles().get(previous).clone();
        Arrays.fill(old, old.length - 100, old.length, (byte) 0);
        Files.write(previous, old);
        assertThatThrownBy(() -> open(16384)).isInstanceOf(CorruptStorageException.class).hasMessageContaining("later segments exist");
    }

    // ---- the same damage to synced data: refused -------------------------------------------------

    /** A lost block in a synced batch looks exactly like a torn one, but a later batch's header claims it durable. */
    @Test
    void aZeroedBlockInASyncedBatchFollowedByLaterBatchesIsRefused() throws IOException {
        Image image = write(1L << 20, 60, 120, 10);
        List<Long> records = SegmentedLogRecoveryTest.recordOffsets(image.bytes(), SegmentedLog.SEGMENT_HEADER_BYTES);
        long victim = records.get(20); // entry 21, in the third synced batch
        powerLoss(image, at -> false);
        byte[] disk = Files.readAllBytes(image.file());
        Arrays.fill(disk, (int) victim, (int) victim + SECTOR, (byte) 0);
        Files.write(image.file(), disk);
        assertThatThrownBy(() -> open(1L << 20))
                .isInstanceOfSatisfying(CorruptStorageException.class, e -> assertThat(e.offset()).isEqualTo(victim))
                .hasMessageContaining("were durable before it was written, so this is not a torn tail");
    }

    /** Damage to the last synced batch while the batch in flight is torn: the header of the batch in flight, if it landed, still claims it. */
    @Test
    void damageBeforeATornBatchWhoseHeaderLandedIsRefused() throws IOException {
        Image image = write(1L << 20, 60, 120, 10);
        long lastBlockOfBatch = lastBlock(image);
        powerLoss(image, at -> at / BLOCK == lastBlockOfBatch);
        byte[] disk = Files.readAllBytes(image.file());
        long victim = SegmentedLogRecoveryTest.recordOffsets(image.bytes(), SegmentedLog.SEGMENT_HEADER_BYTES).get(55); // entry 56, synced
        disk[(int) victim + 20] ^= 0x40; // the term field: its checksum fails
        Files.write(image.file(), disk);
        assertThatThrownBy(() -> open(1L << 20))
                .isInstanceOfSatisfying(CorruptStorageException.class, e -> assertThat(e.offset()).isEqualTo(victim))
                .hasMessageContaining("entries up to 60 were durable");
    }
}
