package io.tandem.kv;

import static io.tandem.kv.KvCodecTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.execution.ExecutionListener;
import io.tandem.execution.ExecutorFactory;
import io.tandem.execution.SequentialExecutor;
import io.tandem.kv.KvCommand.CompareAndSet;
import io.tandem.kv.KvCommand.Delete;
import io.tandem.kv.KvCommand.Put;
import io.tandem.kv.KvException.Reason;
import io.tandem.kv.KvQuery.Get;
import io.tandem.kv.KvQuery.Scan;
import io.tandem.kv.KvResult.Failed;
import io.tandem.kv.KvResult.Found;
import io.tandem.kv.KvResult.NotFound;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The hash-map KV machine answers every command and query exactly as the B+-tree one does (it replaces it in
 * benchmarks and servers), writes the same snapshot for the same state whatever the insertion order, and leaves
 * exactly-once to the executor's session table.
 */
class HashKvStateMachineTest {
    private static final KvLimits LIMITS = new KvLimits(16, 64, 5, 200);

    @Test
    void answersEveryCommandAndQueryAsTheTreeMachineDoes() {
        HashKvStateMachine map = new HashKvStateMachine(LIMITS);
        KvStateMachine tree = new KvStateMachine(LIMITS, 4);
        KvCodec codec = new KvCodec(new KvLimits(64, 128, 5, 200)); // a client with wider limits, so the machines see oversized requests
        Random random = new Random(7);
        for (int i = 1; i <= 5_000; i++) {
            byte[] key = bytes("k" + random.nextInt(40));
            byte[] value = random.nextInt(10) == 0 ? new byte[0] : bytes("v" + random.nextInt(5));
            KvCommand command = switch (random.nextInt(6)) {
                case 0, 1, 2 -> new Put(key, value);
                case 3 -> new Delete(key);
                case 4 -> new CompareAndSet(key, random.nextBoolean() ? null : bytes("v" + random.nextInt(5)), random.nextBoolean() ? null : value);
                default -> new Put(new byte[17], value); // over the key limit: refused with the same reason
            };
            byte[] encoded = codec.encode(command);
            assertThat(codec.decodeResult(map.apply(i, encoded))).as("command %d: %s", i, command).isEqualTo(codec.decodeResult(tree.apply(i, encoded)));
            KvQuery query = random.nextBoolean() ? new Get(key)
                    : new Scan(random.nextBoolean() ? null : bytes("k" + random.nextInt(40)), random.nextBoolean() ? null : bytes("k" + random.nextInt(40)), 1 + random.nextInt(8));
            byte[] q = codec.encode(query);
            assertThat(codec.decodeResult(map.query(q))).as("query after %d: %s", i, query).isEqualTo(codec.decodeResult(tree.query(q)));
        }
    }

    @Test
    void badInputBecomesAFailedResultAndChangesNothing() {
        HashKvStateMachine map = new HashKvStateMachine(LIMITS);
        KvCodec codec = map.codec();
        assertThat(codec.decodeResult(map.apply(1, new byte[] {(byte) 0x7f, 1, 2}))).isInstanceOf(Failed.class);
        assertThat(codec.decodeResult(map.query(new byte[0]))).isInstanceOf(Failed.class);
        assertThat(map.execute(new Put(bytes("k"), new byte[65]))).isEqualTo(new Failed(Reason.VALUE_TOO_LARGE, "value is 65 bytes; the limit is 64"));
        assertThat(map.size()).isZero();
    }

    @Test
    void snapshotsDoNotDependOnInsertionOrderAndRestore() throws IOException {
        HashKvStateMachine forward = new HashKvStateMachine(LIMITS), backward = new HashKvStateMachine(LIMITS);
        List<Put> puts = new ArrayList<>();
        for (int k = 0; k < 300; k++) puts.add(new Put(bytes("key" + k), bytes("value" + k)));
        for (Put p : puts) forward.execute(p);
        for (int i = puts.size() - 1; i >= 0; i--) backward.execute(puts.get(i));
        backward.execute(new Put(bytes("gone"), bytes("x")));
        backward.execute(new Delete(bytes("gone")));
        byte[] a = snapshot(forward), b = snapshot(backward);
        assertThat(a).isEqualTo(b);

        HashKvStateMachine restored = new HashKvStateMachine(LIMITS);
        restored.execute(new Put(bytes("stale"), bytes("s"))); // replaced, not merged
        restored.restore(new ByteArrayInputStream(a));
        assertThat(restored.size()).isEqualTo(300);
        assertThat(restored.read(new Get(bytes("key42")))).isEqualTo(new Found(bytes("value42")));
        assertThat(restored.read(new Get(bytes("stale")))).isEqualTo(new NotFound());
        assertThat(snapshot(restored)).isEqualTo(a);
    }

    @Test
    void refusesASnapshotItDidNotWrite() throws IOException {
        KvStateMachine tree = new KvStateMachine(LIMITS, 4);
        tree.execute(new Put(bytes("a"), bytes("1")));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        tree.snapshot(out);
        HashKvStateMachine map = new HashKvStateMachine(LIMITS);
        map.execute(new Put(bytes("kept"), bytes("1")));
        assertThatThrownBy(() -> map.restore(new ByteArrayInputStream(out.toByteArray()))).isInstanceOf(IOException.class).hasMessageContaining("not a hash-map KV snapshot");
        assertThat(map.read(new Get(bytes("kept")))).isEqualTo(new Found(bytes("1")));
    }

    @Test
    void aRetriedCommandIsAnsweredFromTheSessionTableNotAppliedAgain() {
        HashKvStateMachine map = new HashKvStateMachine(LIMITS);
        KvCodec codec = map.codec();
        List<ExecutionListener.Outcome> outcomes = new ArrayList<>();
        ExecutionListener listener = new ExecutionListener() {
            @Override
            public void executed(Committed entry, Outcome outcome) {
                outcomes.add(outcome);
            }

            @Override
            public void readAnswered(long requestId, byte[] result, RuntimeException error) {}
        };
        SequentialExecutor executor = new SequentialExecutor(map, listener, ExecutorFactory.Limits.DEFAULTS);
        ClientRequest.Session session = new ClientRequest.Session(9, 1);
        NodeId leader = NodeId.of("n1");
        executor.apply(new Committed(1, leader, 1, session, codec.encode(new CompareAndSet(bytes("k"), null, bytes("1")))));
        executor.apply(new Committed(2, leader, 2, session, codec.encode(new CompareAndSet(bytes("k"), null, bytes("1"))))); // the same request, ordered twice
        executor.flush();
        assertThat(outcomes).hasSize(2);
        assertThat(outcomes.get(0)).isInstanceOf(ExecutionListener.Outcome.Applied.class);
        assertThat(outcomes.get(1)).isInstanceOf(ExecutionListener.Outcome.Duplicate.class);
        // Applied twice, the second compare-and-set would have failed; answered from the table it succeeded, once.
        assertThat(codec.decodeResult(((ExecutionListener.Outcome.Duplicate) outcomes.get(1)).result())).isEqualTo(new KvResult.CasSucceeded());
        assertThat(map.read(new Get(bytes("k")))).isEqualTo(new Found(bytes("1")));
    }

    private static byte[] snapshot(HashKvStateMachine m) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        m.snapshot(out);
        return out.toByteArray();
    }
}
