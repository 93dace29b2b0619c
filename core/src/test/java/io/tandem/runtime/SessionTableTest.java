package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class SessionTableTest {
    @Test
    void aRetriedCommandGetsTheCachedResultAndAnOlderOneIsStale() {
        SessionTable t = new SessionTable(10);
        assertThat(t.decide(1, 1)).isInstanceOf(SessionTable.Decision.Apply.class);
        t.record(1, 1, new byte[] {42});
        assertThat(t.decide(1, 1)).isInstanceOfSatisfying(SessionTable.Decision.Duplicate.class, d -> assertThat(d.cachedResult()).containsExactly(42));
        assertThat(t.decide(1, 2)).isInstanceOf(SessionTable.Decision.Apply.class);
        t.record(1, 2, new byte[] {43});
        assertThat(t.decide(1, 1)).isInstanceOfSatisfying(SessionTable.Decision.Stale.class, s -> assertThat(s.lastApplied()).isEqualTo(2));
        assertThat(t.decide(2, 1)).isInstanceOf(SessionTable.Decision.Apply.class);
    }

    @Test
    void evictionDropsTheSessionIdleLongestWhateverItsId() {
        SessionTable t = new SessionTable(2);
        t.record(5, 1, null);
        t.record(3, 1, null);
        t.record(5, 2, null); // session 5 is used again: 3 is now the one idle longest
        t.record(9, 1, null);
        assertThat(t.size()).isEqualTo(2);
        assertThat(t.decide(3, 1)).isInstanceOf(SessionTable.Decision.Apply.class); // evicted
        assertThat(t.decide(5, 2)).isInstanceOf(SessionTable.Decision.Duplicate.class);
        assertThat(t.decide(9, 1)).isInstanceOf(SessionTable.Decision.Duplicate.class);
    }

    @Test
    void aRestoredTableEvictsInTheSameOrderAsTheOriginal() throws IOException {
        SessionTable t = new SessionTable(3);
        t.record(7, 1, null);
        t.record(2, 1, null);
        t.record(7, 2, null);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        t.writeTo(new DataOutputStream(bytes));
        SessionTable restored = new SessionTable(3);
        restored.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        for (SessionTable table : java.util.List.of(t, restored)) {
            table.record(4, 1, null);
            table.record(8, 1, null); // over the limit: session 2, idle longest, goes
            assertThat(table.decide(2, 1)).isInstanceOf(SessionTable.Decision.Apply.class);
            assertThat(table.decide(7, 2)).isInstanceOf(SessionTable.Decision.Duplicate.class);
        }
    }

    @Test
    void survivesASnapshotRoundTrip() throws IOException {
        SessionTable t = new SessionTable(10);
        t.record(1, 7, new byte[] {1, 2});
        t.record(2, 3, null);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        t.writeTo(new DataOutputStream(bytes));
        SessionTable restored = new SessionTable(10);
        restored.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertThat(restored.decide(1, 7)).isInstanceOfSatisfying(SessionTable.Decision.Duplicate.class, d -> assertThat(d.cachedResult()).containsExactly(1, 2));
        assertThat(restored.decide(2, 3)).isInstanceOfSatisfying(SessionTable.Decision.Duplicate.class, d -> assertThat(d.cachedResult()).isNull());
    }
}
