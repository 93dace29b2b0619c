package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A follower acknowledges only durable entries, each durable point once, and never past a cut-back log. */
class FollowerStateTest {
    private static final long NOTHING = FollowerState.NOTHING;

    @Test
    void durableEntriesAreAcknowledgedAtOnce() {
        FollowerState f = new FollowerState();
        assertThat(f.acknowledge(5, 5, 11)).isEqualTo(5);
        assertThat(f.flush(5)).as("nothing is pending").isEqualTo(NOTHING);
    }

    @Test
    void entriesNotYetDurableAreAcknowledgedInPartsAsSyncsComplete() {
        FollowerState f = new FollowerState();
        assertThat(f.acknowledge(10, 4, 21)).as("the durable part goes out at once").isEqualTo(4);
        assertThat(f.flush(4)).as("no progress since, so no second acknowledgement of 4").isEqualTo(NOTHING);
        assertThat(f.flush(7)).isEqualTo(7);
        assertThat(f.pendingRequestId()).isEqualTo(21);
        assertThat(f.flush(12)).as("capped at what the leader sent").isEqualTo(10);
        assertThat(f.flush(13)).as("everything owed was acknowledged").isEqualTo(NOTHING);
    }

    @Test
    void aDurablePointAlreadyAcknowledgedIsNotSentAgain() {
        FollowerState f = new FollowerState();
        assertThat(f.acknowledge(6, 3, 1)).isEqualTo(3);
        assertThat(f.acknowledge(9, 3, 2)).as("3 was acknowledged; 9 waits").isEqualTo(NOTHING);
        assertThat(f.flush(9)).isEqualTo(9);
        assertThat(f.pendingRequestId()).as("the latest request is the one answered").isEqualTo(2);
    }

    @Test
    void aCutBackLogIsNeverAcknowledgedBeyondItsNewEnd() {
        FollowerState f = new FollowerState();
        f.acknowledge(10, 2, 1);
        f.logCutBackTo(6); // entries 7..10 were truncated by a later leader's conflicting suffix
        assertThat(f.flush(20)).as("durability past the cut says nothing of entries 7..10").isEqualTo(6);
        assertThat(f.flush(20)).isEqualTo(NOTHING);
    }

    @Test
    void anEmptyAppendEntriesAtTheDurableEndIsStillAnswered() {
        FollowerState f = new FollowerState();
        assertThat(f.acknowledge(0, 0, 0)).as("a probe at the start of an empty log").isZero();
        assertThat(f.acknowledge(0, 0, 0)).as("a heartbeat-like probe is answered every time").isZero();
    }
}
