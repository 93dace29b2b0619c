package io.tandem.kv;

import static io.tandem.kv.KvCodecTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.kv.KvCommand.CompareAndSet;
import io.tandem.kv.KvCommand.Delete;
import io.tandem.kv.KvCommand.Put;
import io.tandem.kv.KvException.Reason;
import io.tandem.kv.KvQuery.Get;
import io.tandem.kv.KvQuery.Scan;
import io.tandem.kv.KvResult.CasFailed;
import io.tandem.kv.KvResult.CasSucceeded;
import io.tandem.kv.KvResult.Failed;
import io.tandem.kv.KvResult.Found;
import io.tandem.kv.KvResult.NotFound;
import io.tandem.kv.KvResult.Page;
import io.tandem.kv.btree.Entry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/** The state machine driven through its byte interface, as the replication runtime drives it. */
class KvStateMachineTest {
    private final KvStateMachine kv = new KvStateMachine(new KvLimits(16, 64, 5, 200), 4);
    private final KvCodec client = kv.codec();
    private long index;

    private KvResult apply(KvCommand command) {
        return client.decodeResult(kv.apply(++index, client.encode(command)));
    }

    private KvResult applyRaw(byte[] command) {
        return client.decodeResult(kv.apply(++index, command));
    }

    private KvResult query(KvQuery query) {
        return client.decodeResult(kv.query(client.encode(query)));
    }

    @Test
    void putReturnsThePreviousValue() {
        assertThat(apply(new Put(bytes("a"), bytes("1")))).isEqualTo(new NotFound());
        assertThat(apply(new Put(bytes("a"), bytes("2")))).isEqualTo(new Found(bytes("1")));
        assertThat(apply(new Put(new byte[0], new byte[0]))).isEqualTo(new NotFound()); // empty key and value are fine
        assertThat(query(new Get(bytes("a")))).isEqualTo(new Found(bytes("2")));
        assertThat(query(new Get(new byte[0]))).isEqualTo(new Found(new byte[0]));
        assertThat(kv.state().size()).isEqualTo(2);
    }

    /**
     * The executor keeps a result unencoded and encodes it later (a retry, a snapshot): the bytes must be
     * those {@link KvStateMachine#apply} gives at once, however many batches and overwrites of the same keys
     * come in between (the result refers to arrays the tree let go of and never writes into).
     */
    @Test
    void aResultEncodedLaterHasTheBytesOfOneEncodedAtOnce() {
        KvStateMachine deferred = new KvStateMachine(new KvLimits(16, 64, 5, 200), 4);
        Random random = new Random(11);
        List<io.tandem.statemachine.CommandResult> kept = new ArrayList<>();
        List<byte[]> atOnce = new ArrayList<>();
        for (int i = 1; i <= 3_000; i++) {
            byte[] key = bytes("k" + random.nextInt(40));
            byte[] value = new byte[random.nextInt(8)];
            random.nextBytes(value);
            int kind = random.nextInt(5);
            byte[] encoded = switch (kind) {
                case 0 -> client.encode(new Delete(key));
                case 1 -> client.encode(new CompareAndSet(key, random.nextBoolean() ? null : value, random.nextBoolean() ? null : value));
                case 2 -> new byte[] {KvCodec.VERSION, 99}; // an unknown command: refused
                default -> client.encode(new Put(key, value));
            };
            atOnce.add(kv.apply(i, encoded));
            kept.add(deferred.applyForResult(i, encoded));
            if (i % 7 == 0) {
                kv.endBatch();
                deferred.endBatch();
            }
        }
        for (int i = 0; i < kept.size(); i++) assertThat(kept.get(i).encode()).as("result %d", i).isEqualTo(atOnce.get(i));
        assertThat(kept).anyMatch(r -> r instanceof Found).anyMatch(r -> r instanceof CasFailed).anyMatch(r -> r instanceof Failed);
    }

    @Test
    void deleteReturnsThePreviousValue() {
        apply(new Put(bytes("a"), bytes("1")));
        assertThat(apply(new Delete(bytes("a")))).isEqualTo(new Found(bytes("1")));
        assertThat(apply(new Delete(bytes("a")))).isEqualTo(new NotFound());
        assertThat(query(new Get(bytes("a")))).isEqualTo(new NotFound());
    }

    @Test
    void compareAndSetCoversCreateSwapDeleteAndMismatch() {
        assertThat(apply(new CompareAndSet(bytes("k"), null, bytes("1")))).isEqualTo(new CasSucceeded());      // create if absent
        assertThat(apply(new CompareAndSet(bytes("k"), null, bytes("x")))).isEqualTo(new CasFailed(bytes("1"))); // it is not absent
        assertThat(apply(new CompareAndSet(bytes("k"), bytes("0"), bytes("x")))).isEqualTo(new CasFailed(bytes("1")));
        assertThat(apply(new CompareAndSet(bytes("k"), bytes("1"), bytes("2")))).isEqualTo(new CasSucceeded());  // swap
        assertThat(query(new Get(bytes("k")))).isEqualTo(new Found(bytes("2")));
        assertThat(apply(new CompareAndSet(bytes("k"), bytes("2"), null))).isEqualTo(new CasSucceeded());        // delete
        assertThat(query(new Get(bytes("k")))).isEqualTo(new NotFound());
        assertThat(apply(new CompareAndSet(bytes("k"), bytes("2"), bytes("3")))).isEqualTo(new CasFailed(null)); // absent now
        assertThat(apply(new CompareAndSet(bytes("k"), null, null))).isEqualTo(new CasSucceeded());             // absent stays absent
        assertThat(kv.state().size()).isZero();
    }

    @Test
    void scanPagesByCountAndByBytes() {
        for (int i = 0; i < 12; i++) apply(new Put(new byte[] {(byte) ('a' + i)}, new byte[] {(byte) i}));
        // The requested limit is capped at maxScanEntries (5).
        Page first = (Page) query(new Scan(null, null, 100));
        assertThat(first.entries()).hasSize(5);
        assertThat(first.nextFrom()).containsExactly('f');
        List<Entry> all = new ArrayList<>(first.entries());
        for (Page page = first; page.hasMore(); ) {
            page = (Page) query(new Scan(page.nextFrom(), null, 100));
            all.addAll(page.entries());
        }
        assertThat(all).extracting(e -> (char) e.key()[0]).containsExactly('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l');

        Page bounded = (Page) query(new Scan(bytes("c"), bytes("e"), 3));
        assertThat(bounded).isEqualTo(new Page(List.of(new Entry(bytes("c"), new byte[] {2}), new Entry(bytes("d"), new byte[] {3})), null));

        // maxScanBytes (200) ends a page early, but a page always holds at least one entry.
        KvStateMachine big = new KvStateMachine(new KvLimits(16, 150, 100, 200), 4);
        for (int i = 0; i < 4; i++) big.apply(i, big.codec().encode(new Put(new byte[] {(byte) i}, new byte[150])));
        Page page = (Page) big.codec().decodeResult(big.query(big.codec().encode(new Scan(null, null, 10))));
        assertThat(page.entries()).hasSize(1);
        assertThat(page.nextFrom()).containsExactly(1);
    }

    @Test
    void limitsAreEnforcedAgainAtApply() {
        KvCodec generous = new KvCodec(new KvLimits(1024, 1024, 100, 1_000));
        assertFailed(applyRaw(generous.encode(new Put(new byte[17], bytes("v")))), Reason.KEY_TOO_LARGE, "key is 17 bytes; the limit is 16");
        assertFailed(applyRaw(generous.encode(new Put(bytes("k"), new byte[65]))), Reason.VALUE_TOO_LARGE, "value is 65 bytes; the limit is 64");
        assertFailed(applyRaw(generous.encode(new CompareAndSet(bytes("k"), null, new byte[65]))), Reason.VALUE_TOO_LARGE, "new value");
        assertFailed(client.decodeResult(kv.query(generous.encode(new Get(new byte[17])))), Reason.KEY_TOO_LARGE, "key");
        // Typed callers that skip the codec are checked too.
        assertFailed(kv.execute(new Put(new byte[17], bytes("v"))), Reason.KEY_TOO_LARGE, "key");
        assertFailed(kv.read(new Scan(null, null, 0)), Reason.INVALID_ARGUMENT, "scan limit");
        assertThat(kv.state().size()).isZero();
    }

    @Test
    void malformedCommandsBecomeFailedResultsAndChangeNothing() {
        apply(new Put(bytes("a"), bytes("1")));
        var before = kv.state();
        assertFailed(applyRaw(new byte[0]), Reason.MALFORMED, "empty command");
        assertFailed(applyRaw(null), Reason.MALFORMED, "empty command");
        assertFailed(applyRaw(new byte[] {9, 1}), Reason.UNSUPPORTED_VERSION, "version 9");
        assertFailed(applyRaw(new byte[] {1, 42}), Reason.UNKNOWN_OPERATION, "42");
        assertFailed(applyRaw(client.encode(new Get(bytes("a")))), Reason.UNKNOWN_OPERATION, "is a query");
        assertFailed(applyRaw(new byte[] {1, 1, 1, 'a'}), Reason.MALFORMED, "truncated");
        assertFailed(client.decodeResult(kv.query(new byte[] {1, 17, 0})), Reason.MALFORMED, "truncated");
        assertFailed(client.decodeResult(kv.query(client.encode(new Delete(bytes("a"))))), Reason.UNKNOWN_OPERATION, "is a command");
        assertThat(kv.state()).isSameAs(before);
    }

    @Test
    void randomGarbageNeverThrowsFromApplyOrQuery() {
        apply(new Put(bytes("a"), bytes("1")));
        Random random = new Random(99);
        byte[] valid = client.encode(new CompareAndSet(bytes("a"), bytes("1"), bytes("2")));
        int failed = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] input = valid.clone();
            input[random.nextInt(input.length)] = (byte) random.nextInt(256);
            if (random.nextInt(4) == 0) input = Arrays.copyOf(input, random.nextInt(input.length + 3));
            // Both calls must return a decodable result; the exceptions would escape here.
            if (client.decodeResult(kv.apply(++index, input)) instanceof Failed) failed++;
            if (client.decodeResult(kv.query(input)) instanceof Failed) failed++;
        }
        assertThat(failed).isPositive();
        kv.state().verifyStructure();
    }

    @Test
    void replicasFedTheSameCommandsAgreeByteForByte() throws IOException {
        KvStateMachine a = new KvStateMachine(KvLimits.DEFAULTS, 5);
        KvStateMachine b = new KvStateMachine(KvLimits.DEFAULTS, 5);
        Random random = new Random(5);
        for (long i = 1; i <= 5_000; i++) {
            byte[] key = new byte[] {(byte) random.nextInt(64)};
            KvCommand command = switch (random.nextInt(3)) {
                case 0 -> new Put(key, bytes("v" + i));
                case 1 -> new Delete(key);
                default -> new CompareAndSet(key, random.nextBoolean() ? null : bytes("v" + (i - random.nextInt(50))), bytes("c" + i));
            };
            byte[] encoded = a.codec().encode(command);
            assertThat(a.apply(i, encoded)).isEqualTo(b.apply(i, encoded.clone()));
        }
        assertThat(snapshotOf(a)).isEqualTo(snapshotOf(b));
    }

    @Test
    void snapshotAndRestoreCarryTheWholeState() throws IOException {
        for (int i = 0; i < 500; i++) apply(new Put(new byte[] {(byte) (i >> 8), (byte) i}, bytes("v" + i)));
        byte[] snapshot = snapshotOf(kv);
        KvStateMachine restored = new KvStateMachine(KvLimits.DEFAULTS, 64);
        restored.restore(new ByteArrayInputStream(snapshot));
        assertThat(restored.state().size()).isEqualTo(500);
        restored.state().verifyStructure();
        assertThat(snapshotOf(restored)).isEqualTo(snapshot);
        KvCodec codec = restored.codec();
        assertThat(codec.decodeResult(restored.query(codec.encode(new Get(new byte[] {1, (byte) 44})))))
                .isEqualTo(new Found(bytes("v300")));

        byte[] corrupt = snapshot.clone();
        corrupt[corrupt.length / 2] ^= 1;
        Assertions.assertThatThrownBy(() -> restored.restore(new ByteArrayInputStream(corrupt))).isInstanceOf(IOException.class);
        assertThat(restored.state().size()).isEqualTo(500);
    }

    @Test
    void batchedMachinesAgreeWithUnbatchedOnesAndPublishAtEachBatchEnd() throws Exception {
        KvStateMachine batched = new KvStateMachine(KvLimits.DEFAULTS, 5);
        KvStateMachine plain = new KvStateMachine(KvLimits.DEFAULTS, 5);
        KvCodec codec = batched.codec();
        batched.endBatch(); // the executor ends batches: from now on commands wait for the next end to be published
        Random random = new Random(7);
        for (long i = 1; i <= 3_000; i++) {
            byte[] key = new byte[] {(byte) random.nextInt(80)};
            KvCommand command = switch (random.nextInt(3)) {
                case 0 -> new Put(key, bytes("v" + i));
                case 1 -> new Delete(key);
                default -> new CompareAndSet(key, random.nextBoolean() ? null : bytes("v" + (i - random.nextInt(50))), bytes("c" + i));
            };
            byte[] encoded = codec.encode(command);
            assertThat(batched.apply(i, encoded)).isEqualTo(plain.apply(i, encoded.clone()));
            if (random.nextInt(20) == 0) { // a read on the execution thread sees every command so far
                byte[] get = codec.encode(new Get(key));
                assertThat(batched.query(get)).isEqualTo(plain.query(get));
            }
            if (random.nextInt(10) == 0) batched.endBatch();
        }
        batched.endBatch();
        byte[] last = codec.encode(new Put(bytes("last"), bytes("x")));
        batched.apply(3_001, last);
        plain.apply(3_001, last);
        // Another thread sees the state after the last ended batch, not the command since.
        int sizeElsewhere = java.util.concurrent.CompletableFuture.supplyAsync(() -> batched.state().size()).join();
        assertThat(sizeElsewhere).isEqualTo(plain.state().size() - 1);
        batched.endBatch();
        assertThat(java.util.concurrent.CompletableFuture.supplyAsync(() -> batched.state().size()).join()).isEqualTo(plain.state().size());
        assertThat(snapshotOf(batched)).isEqualTo(snapshotOf(plain));
    }

    private static byte[] snapshotOf(KvStateMachine machine) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        machine.snapshot(out);
        return out.toByteArray();
    }

    private static void assertFailed(KvResult result, Reason reason, String message) {
        assertThat(result).isInstanceOfSatisfying(Failed.class, f -> {
            assertThat(f.reason()).isEqualTo(reason);
            assertThat(f.message()).contains(message);
        });
    }
}
