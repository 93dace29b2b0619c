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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
    void batchedMachinesAgreeWithUnbatchedOnesAndPublishOnDemand() throws Exception {
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
        assertThat(snapshotOf(batched)).isEqualTo(snapshotOf(plain)); // a snapshot on the execution thread: everything
        // From here on, new keys only: the size another thread sees tells which commands it sees.
        int before = plain.state().size();
        byte[] first = codec.encode(new Put(bytes("new-0"), bytes("x")));
        batched.apply(3_001, first);
        plain.apply(3_001, first);
        batched.endBatch();
        // An ended batch is not published to other threads by itself any more (issue 25)...
        assertThat(sizeElsewhere(batched)).isEqualTo(before);
        // ...but such a reader's question makes the next end of a batch publish (it asked above).
        byte[] second = codec.encode(new Put(bytes("new-1"), bytes("x")));
        batched.apply(3_002, second);
        plain.apply(3_002, second);
        assertThat(sizeElsewhere(batched)).isEqualTo(before); // not before the batch ends
        batched.endBatch();
        assertThat(sizeElsewhere(batched)).isEqualTo(before + 2);
        // Nobody asking: published at least every MAX_UNPUBLISHED_BATCHES batches.
        int published = before + 2;
        for (int b = 0; b < 3 * KvStateMachine.MAX_UNPUBLISHED_BATCHES; b++) {
            byte[] put = codec.encode(new Put(bytes("more-" + b), bytes("y")));
            batched.apply(3_003 + b, put);
            plain.apply(3_003 + b, put);
            batched.endBatch();
            int seen = batched.published().size();
            assertThat(seen).isBetween(published, before + 3 + b);
            assertThat(before + 3 + b - seen).isLessThan(KvStateMachine.MAX_UNPUBLISHED_BATCHES);
            published = seen;
        }
        // On the execution thread every read sees every command, published or not.
        assertThat(batched.query(codec.encode(new Get(bytes("more-" + (3 * KvStateMachine.MAX_UNPUBLISHED_BATCHES - 1))))))
                .isEqualTo(plain.query(codec.encode(new Get(bytes("more-" + (3 * KvStateMachine.MAX_UNPUBLISHED_BATCHES - 1))))));
        assertThat(sizeElsewhere(batched)).isEqualTo(plain.state().size()); // the query published
        assertThat(snapshotOf(batched)).isEqualTo(snapshotOf(plain));
    }

    /**
     * Issue 25, the contract of publishing on demand, through the executor as a server runs it: every read it
     * answers after a command applied sees that command (linearizable reads stay so), whether or not the tree
     * was published since; a reader on another thread meanwhile sees only whole versions (the keys are written
     * in order, one per command: a version holding key i without every key below it would be torn), never
     * going back, and it catches up once it asks.
     */
    @Test
    void readsThroughTheExecutorSeeEveryAppliedCommandAndOtherThreadsNeverSeeATornTree() throws Exception {
        KvStateMachine machine = new KvStateMachine(KvLimits.DEFAULTS, 8);
        KvCodec codec = machine.codec();
        List<byte[]> answers = new ArrayList<>();
        var executor = new io.tandem.execution.SequentialExecutor(machine, new io.tandem.execution.ExecutionListener() {
            @Override
            public void executed(io.tandem.engine.Committed entry, Outcome outcome) {}

            @Override
            public void readAnswered(long requestId, byte[] result, RuntimeException error) {
                answers.add(result);
            }
        }, io.tandem.execution.ExecutorFactory.Limits.DEFAULTS);
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<String> torn = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicInteger versionsSeen = new java.util.concurrent.atomic.AtomicInteger();
        Thread reader = new Thread(() -> {
            int last = 0;
            while (!done.get() && torn.get() == null) {
                var version = machine.state();
                int n = version.size();
                if (n < last) torn.set("went back from " + last + " to " + n + " keys");
                for (int i = 0; i < n; i++) {
                    if (version.get(key(i)) == null) torn.set(n + " keys but key " + i + " missing");
                }
                if (n != last) versionsSeen.incrementAndGet();
                last = n;
                Thread.onSpinWait();
            }
        });
        reader.start();
        Random random = new Random(3);
        int keys = 0;
        long index = 0;
        for (int batch = 0; batch < 2_000; batch++) {
            int size = 1 + random.nextInt(8);
            for (int j = 0; j < size; j++) {
                executor.apply(new io.tandem.engine.Committed(++index, null, 0, new io.tandem.engine.ClientRequest.Session(1 + j, batch + 1),
                        codec.encode(new Put(key(keys++), bytes("v")))));
            }
            executor.flush(); // endBatch: not published unless asked or due
            if (random.nextInt(4) == 0) { // a read ordered after the last command: answered at once, and sees it
                answers.clear();
                executor.read(batch, index, codec.encode(new Get(key(keys - 1))));
                assertThat(answers).hasSize(1);
                assertThat(codec.decodeResult(answers.get(0))).isEqualTo(new Found(bytes("v")));
            }
        }
        executor.flush();
        done.set(true);
        reader.join();
        assertThat(torn.get()).isNull();
        assertThat(versionsSeen.get()).isPositive();
        assertThat(sizeElsewhere(machine)).isLessThanOrEqualTo(keys);
        executor.flush(); // the reader above asked: this end of a batch publishes
        assertThat(sizeElsewhere(machine)).isEqualTo(keys);
    }

    private static byte[] key(int i) {
        return bytes(String.format("k%06d", i));
    }

    private static int sizeElsewhere(KvStateMachine machine) {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> machine.state().size()).join();
    }

    /**
     * Issue 25: the executor hands a command over as a range of the log entry; the result (and what the
     * tree keeps) equals that of the command alone, the bytes around the range are never read, and bad
     * bytes in the range are refused with a result, as ever. {@code batched}: the machine ends batches, so a put
     * looks its key up as a range of the entry and the tree copies the key only when it inserts (part 15).
     */
    @ParameterizedTest(name = "batched {0}")
    @ValueSource(booleans = {false, true})
    void aCommandInsideALargerArrayAppliesLikeTheCommandAlone(boolean batched) {
        KvStateMachine ranged = new KvStateMachine(KvLimits.DEFAULTS, 5);
        if (batched) ranged.endBatch();
        KvStateMachine plain = new KvStateMachine(KvLimits.DEFAULTS, 5);
        KvCodec codec = plain.codec();
        Random random = new Random(11);
        for (long i = 1; i <= 2_000; i++) {
            byte[] key = new byte[] {(byte) random.nextInt(60)};
            KvCommand command = switch (random.nextInt(3)) {
                case 0 -> new Put(key, bytes("v" + i));
                case 1 -> new Delete(key);
                default -> new CompareAndSet(key, random.nextBoolean() ? null : bytes("v" + (i - random.nextInt(30))), bytes("c" + i));
            };
            byte[] encoded = codec.encode(command);
            int before = random.nextInt(40);
            byte[] entry = new byte[before + encoded.length + random.nextInt(5)];
            random.nextBytes(entry); // garbage around the command
            System.arraycopy(encoded, 0, entry, before, encoded.length);
            byte[] copy = entry.clone();
            assertThat(ranged.applyForResult(i, entry, before, encoded.length).encode()).isEqualTo(plain.apply(i, encoded));
            assertThat(entry).isEqualTo(copy); // never written into
            if (i % 50 == 0) java.util.Arrays.fill(entry, (byte) 0); // the tree kept copies, not views of the entry
            if (batched && i % 7 == 0) ranged.endBatch();
        }
        assertThat(ranged.state().size()).isEqualTo(plain.state().size());
        ranged.state().forEach(null, null, (k, v) -> {
            assertThat(v).isEqualTo(plain.state().get(k));
            return true;
        });
        // A range that cuts the command short, or holds nothing, is refused with a value.
        byte[] put = codec.encode(new Put(bytes("k"), bytes("value")));
        byte[] entry = new byte[put.length + 4];
        System.arraycopy(put, 0, entry, 2, put.length);
        assertThat(ranged.applyForResult(5_000, entry, 2, put.length - 1)).isInstanceOf(Failed.class);
        assertThat(((Failed) ranged.applyForResult(5_001, entry, 2, 0)).reason()).isEqualTo(Reason.MALFORMED);
        assertThat(((Failed) ranged.applyForResult(5_002, entry, 2, put.length + 1)).reason()).isEqualTo(Reason.MALFORMED); // a trailing byte
        // Every cut of a put gives the very result (reason and message) of the cut command alone.
        for (int cut = 0; cut < put.length; cut++) {
            byte[] alone = Arrays.copyOf(put, cut);
            assertThat(ranged.applyForResult(5_100 + cut, entry, 2, cut).encode()).as("cut %d", cut).isEqualTo(plain.apply(5_100 + cut, alone));
        }
        // A key or value over the limits, refused alike.
        KvStateMachine small = new KvStateMachine(new KvLimits(4, 8, 10, 100), 5);
        KvStateMachine smallRanged = new KvStateMachine(new KvLimits(4, 8, 10, 100), 5);
        if (batched) smallRanged.endBatch();
        for (byte[] big : List.of(codec.encode(new Put(bytes("toolong"), bytes("v"))), codec.encode(new Put(bytes("k"), bytes("far too long a value"))))) {
            byte[] inside = new byte[big.length + 3];
            System.arraycopy(big, 0, inside, 1, big.length);
            KvResult result = smallRanged.applyForResult(1, inside, 1, big.length);
            assertThat(result).isInstanceOf(Failed.class);
            assertThat(result.encode()).isEqualTo(small.apply(1, big));
        }
        assertThat(ranged.query(codec.encode(new Get(bytes("k"))))).isEqualTo(codec.encode(new NotFound()));
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
