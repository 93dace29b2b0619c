package io.tandem.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.ClientRequest.Session;
import io.tandem.statemachine.CommandResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionTableTest {
    private static Session one(long client, long sequence) {
        return new Session(client, sequence); // one command in flight: low watermark = sequence
    }

    private static void applied(SessionTable t, Session s, int result) {
        assertThat(t.decide(s)).isInstanceOf(SessionTable.Decision.Apply.class);
        t.record(s, new byte[] {(byte) result});
    }

    @Test
    void aRetriedCommandGetsTheCachedResultAndAnOlderOneIsStale() {
        SessionTable t = new SessionTable(10, 100);
        applied(t, one(1, 1), 42);
        assertThat(t.decide(one(1, 1))).isInstanceOfSatisfying(SessionTable.Decision.Duplicate.class, d -> assertThat(d.cachedResult()).containsExactly(42));
        applied(t, one(1, 2), 43);
        // Sequence 2 declared that 1 is answered: 1 is below the floor now.
        assertThat(t.decide(one(1, 1))).isInstanceOfSatisfying(SessionTable.Decision.Stale.class, s -> assertThat(s.floor()).isEqualTo(1));
        assertThat(t.decide(one(2, 1))).isInstanceOf(SessionTable.Decision.Apply.class);
    }

    @Test
    void aLookupOfTheCachedResultChangesNothing() {
        SessionTable t = new SessionTable(10, 100);
        applied(t, new Session(1, 1, 1), 42);
        assertThat(t.cachedResult(new Session(1, 1, 1))).containsExactly(42);
        assertThat(t.cachedResult(new Session(1, 2, 1))).isNull(); // never executed
        assertThat(t.cachedResult(new Session(9, 1, 1))).isNull(); // unknown client
        assertThat(t.cachedResult(Session.NONE)).isNull();
        // A lookup's watermark (3: "1 and 2 are answered") is not the client's word in the order: the
        // floor stays where the applied commands put it, so 1 is still a duplicate, not stale.
        assertThat(t.cachedResult(new Session(1, 3, 3))).isNull();
        assertThat(t.cachedResult(new Session(1, 1, 1))).containsExactly(42);
        assertThat(t.decide(new Session(1, 1, 1))).isInstanceOf(SessionTable.Decision.Duplicate.class);
        applied(t, new Session(1, 2, 2), 43); // its client raised the floor over 1
        assertThat(t.cachedResult(new Session(1, 1, 1))).isNull(); // below the floor: never answered from the table
        assertThat(t.cachedResult(new Session(1, 2, 2))).containsExactly(43);
    }

    /** A result that counts how often it was encoded. */
    private static final class Counted implements CommandResult {
        final byte[] bytes;
        int encodes;

        Counted(int value) {
            bytes = new byte[] {(byte) value, 7};
        }

        @Override
        public byte[] encode() {
            encodes++;
            return bytes.clone();
        }
    }

    private static byte[] written(SessionTable t) throws IOException {
        var bytes = new ByteArrayOutputStream();
        try (var out = new DataOutputStream(bytes)) {
            t.writeTo(out);
        }
        return bytes.toByteArray();
    }

    @Test
    void aResultIsEncodedOnlyWhenARetryOrASnapshotAsksAndGivesTheBytesOfAnEncodedOne() throws IOException {
        SessionTable deferred = new SessionTable(10, 100);
        SessionTable eager = new SessionTable(10, 100);
        Counted first = new Counted(42);
        Counted second = new Counted(43);
        Counted third = new Counted(44);
        deferred.record(new Session(1, 1, 1), first);
        deferred.record(new Session(1, 2, 1), second); // two in flight: kept in the session's map
        deferred.record(new Session(2, 1, 1), third);
        eager.record(new Session(1, 1, 1), first.bytes.clone());
        eager.record(new Session(1, 2, 1), second.bytes.clone());
        eager.record(new Session(2, 1, 1), third.bytes.clone());
        assertThat(List.of(first.encodes, second.encodes, third.encodes)).containsExactly(0, 0, 0); // applied, asked by nobody

        // A snapshot holds the same bytes as a table of encoded results: replicas that encoded at
        // different times (or never) still write identical snapshots.
        assertThat(written(deferred)).isEqualTo(written(eager));
        assertThat(List.of(first.encodes, second.encodes, third.encodes)).containsExactly(1, 1, 1);

        // A retry or a lookup is answered with the result's bytes.
        assertThat(deferred.decide(new Session(1, 2, 1))).isInstanceOfSatisfying(SessionTable.Decision.Duplicate.class,
                d -> assertThat(d.cachedResult()).containsExactly(43, 7));
        assertThat(deferred.cachedResult(new Session(2, 1, 1))).containsExactly(44, 7);
        assertThat(deferred.cachedResult(new Session(1, 1, 1))).containsExactly(42, 7);
        assertThat(List.of(first.encodes, second.encodes, third.encodes)).containsExactly(2, 2, 2);

        // Restored, it holds encoded bytes and decides as before.
        SessionTable restored = roundTrip(deferred, new SessionTable(10, 100));
        assertThat(written(restored)).isEqualTo(written(eager));
        assertThat(restored.cachedResult(new Session(1, 1, 1))).containsExactly(42, 7);
    }

    @Test
    void commandsInFlightOnOneSessionApplyOnceInAnyOrder() {
        SessionTable t = new SessionTable(10, 100);
        // A client with 1..4 in flight (watermark 1) whose copies arrive out of order, some twice.
        for (long s : new long[] {3, 1, 4}) applied(t, new Session(7, s, 1), (int) s);
        assertThat(t.decide(new Session(7, 3, 1))).isInstanceOfSatisfying(SessionTable.Decision.Duplicate.class, d -> assertThat(d.cachedResult()).containsExactly(3));
        applied(t, new Session(7, 2, 1), 2);
        assertThat(t.decide(new Session(7, 1, 1))).isInstanceOf(SessionTable.Decision.Duplicate.class);
        assertThat(t.remembered(7)).isEqualTo(4);
        // The client got every answer: its next command declares watermark 5 and the table forgets 1..4.
        applied(t, new Session(7, 5, 5), 5);
        assertThat(t.remembered(7)).isEqualTo(1);
        assertThat(t.decide(new Session(7, 2, 1))).isInstanceOf(SessionTable.Decision.Stale.class);
    }

    @Test
    void aSessionThatNeverDeclaresAWatermarkIsBounded() {
        SessionTable t = new SessionTable(10, 3);
        for (long s = 1; s <= 5; s++) applied(t, new Session(9, s, 0), (int) s);
        assertThat(t.remembered(9)).isEqualTo(3);
        assertThat(t.decide(new Session(9, 2, 0))).as("forgotten: never applied again").isInstanceOf(SessionTable.Decision.Stale.class);
        assertThat(t.decide(new Session(9, 3, 0))).isInstanceOf(SessionTable.Decision.Duplicate.class);
    }

    @Test
    void aWatermarkAboveTheSequenceIsRefused() {
        assertThatThrownBy(() -> new Session(1, 3, 4)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("low watermark");
        assertThatThrownBy(() -> new Session(1, 0, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("start at 1");
    }

    @Test
    void evictionDropsTheSessionIdleLongestWhateverItsId() {
        SessionTable t = new SessionTable(2, 100);
        applied(t, one(5, 1), 0);
        applied(t, one(3, 1), 0);
        applied(t, one(5, 2), 0); // session 5 is used again: 3 is now the one idle longest
        applied(t, one(9, 1), 0);
        assertThat(t.size()).isEqualTo(2);
        assertThat(t.decide(one(3, 1))).isInstanceOf(SessionTable.Decision.Apply.class); // evicted
        assertThat(t.decide(one(5, 2))).isInstanceOf(SessionTable.Decision.Duplicate.class);
        assertThat(t.decide(one(9, 1))).isInstanceOf(SessionTable.Decision.Duplicate.class);
    }

    /**
     * The use order is a list threaded through the sessions (issue 25): against a model (an
     * access-ordered map of the sessions a table of that size must still hold), random commands over
     * more clients than fit must leave exactly the model's sessions, and a restored copy must too.
     */
    @Test
    void evictionFollowsTheUseOrderOverManyCommands() throws IOException {
        var random = new java.util.SplittableRandom(25);
        int max = 8;
        SessionTable t = new SessionTable(max, 100);
        var model = new java.util.LinkedHashMap<Long, Long>(16, 0.75f, true); // client -> last sequence applied
        for (int i = 0; i < 5_000; i++) {
            long client = 1 + random.nextInt(20);
            long sequence = model.getOrDefault(client, 0L) + 1;
            if (t.decide(one(client, sequence)) instanceof SessionTable.Decision.Apply) t.record(one(client, sequence), new byte[] {1});
            model.put(client, sequence);
            if (model.size() > max) model.remove(model.keySet().iterator().next());
            if (i % 997 == 0) t = roundTrip(t, new SessionTable(max, 100));
        }
        assertThat(t.size()).isEqualTo(model.size());
        for (var e : model.entrySet()) {
            assertThat(t.decide(one(e.getKey(), e.getValue()))).as("client %d", e.getKey()).isInstanceOf(SessionTable.Decision.Duplicate.class);
        }
    }

    @Test
    void aRestoredTableDecidesAndEvictsLikeTheOriginal() throws IOException {
        SessionTable t = new SessionTable(3, 100);
        applied(t, new Session(7, 2, 1), 2);
        applied(t, one(2, 1), 0);
        applied(t, new Session(7, 1, 1), 1);
        SessionTable restored = roundTrip(t, new SessionTable(3, 100));
        for (SessionTable table : List.of(t, restored)) {
            assertThat(table.decide(new Session(7, 2, 1))).isInstanceOfSatisfying(SessionTable.Decision.Duplicate.class, d -> assertThat(d.cachedResult()).containsExactly(2));
            applied(table, one(4, 1), 0);
            applied(table, one(8, 1), 0); // over the limit: session 2, idle longest, goes
            assertThat(table.decide(one(2, 1))).isInstanceOf(SessionTable.Decision.Apply.class);
            assertThat(table.decide(new Session(7, 1, 1))).isInstanceOf(SessionTable.Decision.Duplicate.class);
        }
    }

    @Test
    void corruptInputIsRefusedWithAnIoException() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(2);
        out.writeInt(1);
        out.writeLong(1);
        out.writeLong(0);
        out.writeInt(-5);
        SessionTable t = new SessionTable(3, 100);
        assertThatThrownBy(() -> t.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()))))
                .isInstanceOf(IOException.class).hasMessageContaining("negative result count");
        assertThatThrownBy(() -> t.readFrom(new DataInputStream(new ByteArrayInputStream(new byte[] {0, 0, 0, 9}))))
                .isInstanceOf(IOException.class).hasMessageContaining("format 9");
    }

    private static SessionTable roundTrip(SessionTable from, SessionTable into) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        from.writeTo(new DataOutputStream(bytes));
        into.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        return into;
    }
}
