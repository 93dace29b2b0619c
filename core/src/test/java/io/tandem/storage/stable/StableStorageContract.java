package io.tandem.storage.stable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.storage.LogEntry;
import io.tandem.storage.SnapshotMeta;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link StableStorage} obeys, run against the file and the in-memory
 * implementation: what is durable when, and what a crash may lose.
 */
public abstract class StableStorageContract {
    protected StableStorage storage;

    /** Opens the storage under test (small segments, so logs span several). */
    protected abstract StableStorage open();

    /** Crashes {@code old} (no further sync; unsynced appends may be lost) and opens it again. */
    protected abstract StableStorage crashAndReopen(StableStorage old);

    @AfterEach
    void closeStorage() {
        if (storage != null) storage.close();
    }

    public static byte[] payload(long index, long term) {
        int length = (int) ((index * 37 + term) % 300);
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) bytes[i] = (byte) (index * 31 + term * 7 + i);
        return bytes;
    }

    public static LogEntry entry(long index, long term) {
        return new LogEntry(index, term, payload(index, term));
    }

    public static void assertIntact(StableLog log, long from, long to, long term) {
        for (long i = from; i <= to; i++) {
            LogEntry e = log.entry(i);
            assertThat(e.index()).isEqualTo(i);
            assertThat(e.term()).as("term of %d", i).isEqualTo(term);
            assertThat(e.payload()).as("payload of %d", i).isEqualTo(payload(i, term));
        }
    }

    private void appendRange(long from, long to, long term) {
        for (long i = from; i <= to; i++) storage.log().append(entry(i, term));
    }

    @Test
    void anEmptyLogStartsAtIndexOne() {
        storage = open();
        assertThat(storage.log().firstIndex()).isEqualTo(1);
        assertThat(storage.log().lastIndex()).isZero();
        assertThat(storage.log().syncedIndex()).isZero();
    }

    @Test
    void appendsAreReadableAtOnceAndDurableAfterSync() {
        storage = open();
        appendRange(1, 500, 1);
        assertThat(storage.log().lastIndex()).isEqualTo(500);
        assertIntact(storage.log(), 1, 500, 1);
        assertThat(storage.log().sync()).isEqualTo(500);
        storage = crashAndReopen(storage);
        assertThat(storage.log().lastIndex()).isEqualTo(500);
        assertIntact(storage.log(), 1, 500, 1);
    }

    @Test
    void aCrashKeepsSyncedEntriesAndAPrefixOfTheRest() {
        storage = open();
        appendRange(1, 300, 1);
        storage.log().sync();
        appendRange(301, 400, 1);
        storage = crashAndReopen(storage);
        long last = storage.log().lastIndex();
        assertThat(last).isBetween(300L, 400L);
        assertIntact(storage.log(), 1, last, 1);
        storage.log().append(entry(last + 1, 2));
        storage.log().sync();
        storage = crashAndReopen(storage);
        assertThat(storage.log().lastIndex()).isEqualTo(last + 1);
        assertThat(storage.log().entry(last + 1).payload()).isEqualTo(payload(last + 1, 2));
    }

    @Test
    void forEachStreamsTheRetainedEntriesInOrder() {
        storage = open();
        appendRange(1, 250, 3);
        storage.log().sync();
        appendRange(251, 260, 3); // some still unsynced
        long[] next = {100};
        storage.log().forEach(100, e -> {
            assertThat(e.index()).isEqualTo(next[0]);
            assertThat(e.payload()).isEqualTo(payload(next[0]++, 3));
        });
        assertThat(next[0]).isEqualTo(261);
    }

    @Test
    void truncateSuffixIsDurableOnReturnAndSyncsWhatCameBefore() {
        storage = open();
        appendRange(1, 200, 1); // never synced explicitly
        storage.log().truncateSuffix(150);
        assertThat(storage.log().lastIndex()).isEqualTo(149);
        assertThat(storage.log().syncedIndex()).isEqualTo(149);
        appendRange(150, 160, 2);
        storage = crashAndReopen(storage);
        long last = storage.log().lastIndex();
        assertThat(last).isBetween(149L, 160L);
        assertIntact(storage.log(), 1, 149, 1);
        assertIntact(storage.log(), 150, last, 2);
    }

    @Test
    void truncationAcrossSegmentsThenAppendingAgain() {
        storage = open();
        appendRange(1, 400, 1);
        storage.log().sync();
        storage.log().truncateSuffix(20);
        appendRange(20, 450, 2);
        storage.log().sync();
        storage = crashAndReopen(storage);
        assertThat(storage.log().lastIndex()).isEqualTo(450);
        assertIntact(storage.log(), 1, 19, 1);
        assertIntact(storage.log(), 20, 450, 2);
    }

    @Test
    void truncatingEverythingLeavesAnEmptyLogThatContinues() {
        storage = open();
        appendRange(1, 10, 1);
        storage.log().truncateSuffix(1);
        assertThat(storage.log().lastIndex()).isZero();
        storage.log().append(entry(1, 5));
        storage.log().sync();
        storage = crashAndReopen(storage);
        assertThat(storage.log().lastIndex()).isEqualTo(1);
        assertThat(storage.log().entry(1).term()).isEqualTo(5);
    }

    @Test
    void compactPrefixDropsEntriesAndNeverLosesTheRetainedOnes() {
        storage = open();
        appendRange(1, 600, 1);
        storage.log().compactPrefix(450);
        assertThat(storage.log().firstIndex()).isEqualTo(451);
        assertThatThrownBy(() -> storage.log().entry(450)).isInstanceOf(IndexOutOfBoundsException.class);
        assertIntact(storage.log(), 451, 600, 1);
        storage = crashAndReopen(storage);
        assertThat(storage.log().firstIndex()).isBetween(1L, 451L);
        assertThat(storage.log().lastIndex()).isEqualTo(600);
        assertIntact(storage.log(), storage.log().firstIndex(), 600, 1);
    }

    @Test
    void compactingTheWholeLogKeepsAppendsGoing() {
        storage = open();
        appendRange(1, 100, 1);
        storage.log().compactPrefix(100);
        assertThat(storage.log().firstIndex()).isEqualTo(101);
        assertThat(storage.log().lastIndex()).isEqualTo(100);
        appendRange(101, 110, 1);
        storage.log().sync();
        storage = crashAndReopen(storage);
        assertThat(storage.log().lastIndex()).isEqualTo(110);
        assertIntact(storage.log(), 101, 110, 1);
    }

    @Test
    void resetAfterDiscardsTheLogDurably() {
        storage = open();
        appendRange(1, 300, 1);
        storage.log().sync();
        storage.log().resetAfter(1000);
        assertThat(storage.log().firstIndex()).isEqualTo(1001);
        assertThat(storage.log().lastIndex()).isEqualTo(1000);
        assertThat(storage.log().syncedIndex()).isEqualTo(1000);
        storage = crashAndReopen(storage);
        assertThat(storage.log().firstIndex()).isEqualTo(1001);
        assertThat(storage.log().lastIndex()).isEqualTo(1000);
        storage.log().append(entry(1001, 4));
        storage.log().sync();
        storage = crashAndReopen(storage);
        assertThat(storage.log().lastIndex()).isEqualTo(1001);
        assertIntact(storage.log(), 1001, 1001, 4);
    }

    @Test
    void resetToAnIndexInsideTheOldLog() {
        storage = open();
        appendRange(1, 300, 1);
        storage.log().resetAfter(5);
        appendRange(6, 20, 2);
        storage.log().sync();
        storage = crashAndReopen(storage);
        assertThat(storage.log().firstIndex()).isEqualTo(6);
        assertIntact(storage.log(), 6, 20, 2);
    }

    @Test
    void misuseIsRejected() {
        storage = open();
        appendRange(1, 10, 1);
        assertThatThrownBy(() -> storage.log().append(entry(12, 1))).isInstanceOf(IllegalArgumentException.class);
        storage.log().compactPrefix(5);
        assertThatThrownBy(() -> storage.log().truncateSuffix(3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> storage.log().compactPrefix(11)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> storage.log().entry(11)).isInstanceOf(IndexOutOfBoundsException.class);
        storage.log().truncateSuffix(11); // beyond the end: nothing to do
        assertThat(storage.log().lastIndex()).isEqualTo(10);
    }

    // ---- meta ----------------------------------------------------------------------------------

    @Test
    void metaRecordsAreDurableAndReplacedAtomically() {
        storage = open();
        assertThat(storage.meta().get("term")).isEmpty();
        storage.meta().putAll(Map.of("term", bytes("7"), "vote", bytes("n2")));
        storage.meta().put("term", bytes("8"));
        storage = crashAndReopen(storage);
        assertThat(storage.meta().get("term")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("8")));
        assertThat(storage.meta().get("vote")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("n2")));
        assertThat(storage.meta().all()).containsOnlyKeys("term", "vote");
        assertThatThrownBy(() -> storage.meta().put("", bytes("x"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void metaValuesAreCopied() {
        storage = open();
        byte[] value = bytes("abc");
        storage.meta().put("k", value);
        value[0] = 'z';
        storage.meta().get("k").orElseThrow()[1] = 'z';
        assertThat(storage.meta().get("k").orElseThrow()).isEqualTo(bytes("abc"));
    }

    // ---- snapshots -----------------------------------------------------------------------------

    protected static byte[] snapshotData(int size, int seed) {
        byte[] data = new byte[size];
        for (int i = 0; i < size; i++) data[i] = (byte) (i * 13 + seed);
        return data;
    }

    protected static int crc(byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return (int) crc.getValue();
    }

    private static byte[] readAll(InputStream in) {
        try (in) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aWrittenSnapshotCarriesSizeAndChecksumAndReadsBackInChunks() {
        storage = open();
        byte[] data = snapshotData(200_000, 1);
        SnapshotMeta meta = storage.snapshots().write(40, 3, bytes("config"), out -> out.write(data));
        assertThat(meta).isEqualTo(new SnapshotMeta(40, 3, data.length, crc(data), bytes("config")));
        ByteArrayOutputStream chunks = new ByteArrayOutputStream();
        for (long offset = 0; offset < data.length; ) {
            byte[] chunk = storage.snapshots().readChunk(meta, offset, 65_536).orElseThrow();
            chunks.writeBytes(chunk);
            offset += chunk.length;
        }
        assertThat(chunks.toByteArray()).isEqualTo(data);
        storage = crashAndReopen(storage);
        assertThat(storage.snapshots().latest()).contains(meta);
        assertThat(readAll(storage.snapshots().open(meta))).isEqualTo(data);
    }

    @Test
    void onlyTheNewestSnapshotsAreKept() {
        storage = open();
        SnapshotMeta first = storage.snapshots().write(10, 1, new byte[0], out -> out.write(snapshotData(100, 1)));
        SnapshotMeta second = storage.snapshots().write(20, 1, new byte[0], out -> out.write(snapshotData(100, 2)));
        SnapshotMeta third = storage.snapshots().write(30, 2, new byte[0], out -> out.write(snapshotData(100, 3)));
        assertThat(storage.snapshots().list()).containsExactly(second, third);
        assertThat(storage.snapshots().readChunk(first, 0, 10)).isEmpty();
        assertThatThrownBy(() -> storage.snapshots().write(25, 1, new byte[0], out -> {})).isInstanceOf(IllegalArgumentException.class);
        storage = crashAndReopen(storage);
        assertThat(storage.snapshots().list()).containsExactly(second, third);
    }

    @Test
    void aWriterFailureLeavesNoSnapshotAndTheStoreUsable() {
        storage = open();
        assertThatThrownBy(() -> storage.snapshots().write(10, 1, new byte[0], out -> {
            out.write(snapshotData(10_000, 1));
            throw new IOException("state machine broke");
        })).isInstanceOf(UncheckedIOException.class).hasMessageContaining("state machine");
        assertThat(storage.snapshots().list()).isEmpty();
        SnapshotMeta meta = storage.snapshots().write(10, 1, new byte[0], out -> out.write(1));
        assertThat(storage.snapshots().latest()).contains(meta);
    }

    @Test
    void aReceivedSnapshotBecomesVisibleOnlyAfterItsChecksumIsVerified() throws Exception {
        storage = open();
        byte[] data = snapshotData(150_000, 9);
        SnapshotMeta meta = new SnapshotMeta(77, 4, data.length, crc(data), bytes("cfg"));
        SnapshotInstall install = storage.snapshots().beginInstall(meta);
        install.write(Arrays.copyOfRange(data, 0, 100_000));
        assertThat(storage.snapshots().list()).isEmpty();
        install.write(Arrays.copyOfRange(data, 100_000, data.length));
        assertThat(install.commit()).isEqualTo(meta);
        assertThat(storage.snapshots().latest()).contains(meta);
        assertThat(readAll(storage.snapshots().open(meta))).isEqualTo(data);
    }

    @Test
    void aReceivedSnapshotWithABadChecksumOrSizeIsRejected() throws Exception {
        storage = open();
        byte[] data = snapshotData(5_000, 2);
        SnapshotMeta wrongCrc = new SnapshotMeta(50, 1, data.length, crc(data) ^ 1, new byte[0]);
        SnapshotInstall install = storage.snapshots().beginInstall(wrongCrc);
        install.write(data);
        assertThatThrownBy(install::commit).isInstanceOf(SnapshotRejectedException.class).hasMessageContaining("checksum");

        SnapshotMeta shorter = new SnapshotMeta(50, 1, data.length - 1, crc(data), new byte[0]);
        SnapshotInstall tooMuch = storage.snapshots().beginInstall(shorter);
        assertThatThrownBy(() -> tooMuch.write(data)).isInstanceOf(SnapshotRejectedException.class);

        SnapshotMeta longer = new SnapshotMeta(50, 1, data.length + 1, crc(data), new byte[0]);
        SnapshotInstall tooLittle = storage.snapshots().beginInstall(longer);
        tooLittle.write(data);
        assertThatThrownBy(tooLittle::commit).isInstanceOf(SnapshotRejectedException.class).hasMessageContaining("bytes");
        assertThat(storage.snapshots().list()).isEmpty();

        storage.snapshots().write(60, 1, new byte[0], out -> {});
        SnapshotMeta older = new SnapshotMeta(55, 1, data.length, crc(data), new byte[0]);
        SnapshotInstall stale = storage.snapshots().beginInstall(older);
        stale.write(data);
        assertThatThrownBy(stale::commit).isInstanceOf(SnapshotRejectedException.class).hasMessageContaining("older");
    }

    @Test
    void aCrashDuringAnInstallLeavesNoTrace() throws Exception {
        storage = open();
        byte[] data = snapshotData(5_000, 3);
        SnapshotInstall install = storage.snapshots().beginInstall(new SnapshotMeta(9, 1, data.length, crc(data), new byte[0]));
        install.write(Arrays.copyOf(data, 2_000));
        storage = crashAndReopen(storage);
        assertThat(storage.snapshots().list()).isEmpty();
    }

    protected static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
