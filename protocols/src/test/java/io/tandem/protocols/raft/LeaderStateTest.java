package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import org.junit.jupiter.api.Test;

/** The leader's own payloads, delivered without decoding the log's bytes again (issue 25, part 11). */
class LeaderStateTest {
    private static final NodeId SELF = NodeId.of("n1");

    private static LeaderState leader() {
        return new LeaderState(null, 10, null, null);
    }

    private static EntryPayload command(long requestId) {
        return new EntryPayload.Command(SELF, requestId, new ClientRequest.Session(7, requestId), new byte[] {(byte) requestId});
    }

    @Test
    void eachPayloadIsTakenOnceAtItsIndexInOrder() {
        LeaderState l = leader();
        EntryPayload noop = new EntryPayload.Noop(null, 0);
        EntryPayload a = command(11);
        EntryPayload b = command(12);
        l.appended(10, noop);
        l.appended(11, a);
        l.appended(12, b);
        assertThat(l.takeOwnPayload(9)).as("before this leader's term: decoded from the log").isNull();
        assertThat(l.takeOwnPayload(10)).isSameAs(noop);
        assertThat(l.takeOwnPayload(11)).isSameAs(a);
        assertThat(l.takeOwnPayload(11)).as("taken already").isNull();
        assertThat(l.takeOwnPayload(12)).isSameAs(b);
        assertThat(l.ownPayloads).isEmpty();
    }

    @Test
    void indexesSkippedByDeliveryAreForgotten() {
        LeaderState l = leader();
        for (long i = 10; i < 20; i++) l.appended(i, command(i));
        // Delivery skips what a snapshot covers: the payloads before the asked index go.
        assertThat(((EntryPayload.Command) l.takeOwnPayload(15)).requestId()).isEqualTo(15);
        assertThat(l.ownPayloads).hasSize(4);
        assertThat(l.takeOwnPayload(30)).isNull();
        assertThat(l.ownPayloads).isEmpty();
        l.appended(20, command(20));
        assertThat(((EntryPayload.Command) l.takeOwnPayload(20)).requestId()).isEqualTo(20);
    }

    @Test
    void aGapInTheAppendsStartsAfresh() {
        LeaderState l = leader();
        l.appended(10, command(10));
        l.appended(12, command(12)); // never happens in a leader; then nothing stale may be delivered for 11
        assertThat(l.takeOwnPayload(10)).isNull();
        assertThat(l.takeOwnPayload(11)).isNull();
        assertThat(((EntryPayload.Command) l.takeOwnPayload(12)).requestId()).isEqualTo(12);
    }
}
