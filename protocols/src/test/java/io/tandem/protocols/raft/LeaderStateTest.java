package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import org.junit.jupiter.api.Test;

/** The leader's own entries, delivered as the {@link Committed} built when appended, without decoding the log's bytes again (issue 25). */
class LeaderStateTest {
    private static final NodeId SELF = NodeId.of("n1");

    private static LeaderState leader() {
        return new LeaderState(null, 10, null, null);
    }

    private static Committed command(long requestId) {
        return new Committed(requestId, SELF, requestId, new ClientRequest.Session(7, requestId), new byte[] {(byte) requestId});
    }

    @Test
    void eachPayloadIsTakenOnceAtItsIndexInOrder() {
        LeaderState l = leader();
        Committed noop = Committed.noop(10);
        Committed a = command(11);
        Committed b = command(12);
        l.appended(10, noop);
        l.appended(11, a);
        l.appended(12, b);
        assertThat(l.takeOwn(9)).as("before this leader's term: decoded from the log").isNull();
        assertThat(l.takeOwn(10)).isSameAs(noop);
        assertThat(l.takeOwn(11)).isSameAs(a);
        assertThat(l.takeOwn(11)).as("taken already").isNull();
        assertThat(l.takeOwn(12)).isSameAs(b);
        assertThat(l.ownEntries).isEmpty();
    }

    @Test
    void indexesSkippedByDeliveryAreForgotten() {
        LeaderState l = leader();
        for (long i = 10; i < 20; i++) l.appended(i, command(i));
        // Delivery skips what a snapshot covers: the entries before the asked index go.
        assertThat((l.takeOwn(15)).requestId()).isEqualTo(15);
        assertThat(l.ownEntries).hasSize(4);
        assertThat(l.takeOwn(30)).isNull();
        assertThat(l.ownEntries).isEmpty();
        l.appended(20, command(20));
        assertThat((l.takeOwn(20)).requestId()).isEqualTo(20);
    }

    @Test
    void aGapInTheAppendsStartsAfresh() {
        LeaderState l = leader();
        l.appended(10, command(10));
        l.appended(12, command(12)); // never happens in a leader; then nothing stale may be delivered for 11
        assertThat(l.takeOwn(10)).isNull();
        assertThat(l.takeOwn(11)).isNull();
        assertThat((l.takeOwn(12)).requestId()).isEqualTo(12);
    }
}
