package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Vote;
import java.util.List;
import org.junit.jupiter.api.Test;

class Phase1MergeTest {
    private static Value command(int n) {
        return new Value.Command(NodeId.of("n1"), n, ClientRequest.Session.NONE, new byte[] {(byte) n});
    }

    @Test
    void theHighestBallotVoteWinsEachSlotAndHolesBecomeNoops() {
        Phase1Merge m = new Phase1Merge(5);
        m.add(0, List.of(new Vote(5, new Ballot(1, 0), command(1)), new Vote(7, new Ballot(1, 0), command(2))));
        m.add(0, List.of(new Vote(5, new Ballot(2, 1), command(3)), new Vote(8, new Ballot(1, 2), command(4))));
        m.add(0, List.of(new Vote(7, new Ballot(1, 0), command(2)), new Vote(5, new Ballot(1, 2), command(5))));
        assertThat(m.startSlot()).isEqualTo(5);
        assertThat(m.lastVotedSlot()).isEqualTo(8);
        assertThat(m.safeValues()).containsExactly(command(3), Value.NOOP, command(2), command(4));
    }

    @Test
    void slotsBelowTheStartOrCollectedByAnAcceptorAreSkipped() {
        Phase1Merge m = new Phase1Merge(3);
        m.add(0, List.of(new Vote(2, new Ballot(9, 0), command(1)), new Vote(4, new Ballot(1, 0), command(2))));
        m.add(5, List.of(new Vote(7, new Ballot(1, 1), command(3)))); // this acceptor forgot votes up to 5: chosen and snapshotted
        assertThat(m.startSlot()).isEqualTo(6);
        assertThat(m.safeValues()).containsExactly(Value.NOOP, command(3));
    }

    @Test
    void noVotesMeansNothingToRepropose() {
        Phase1Merge m = new Phase1Merge(1);
        m.add(0, List.of());
        m.add(0, List.of());
        assertThat(m.lastVotedSlot()).isZero();
        assertThat(m.safeValues()).isEmpty();
        Phase1Merge collected = new Phase1Merge(1);
        collected.add(10, List.of());
        assertThat(collected.startSlot()).isEqualTo(11);
        assertThat(collected.safeValues()).isEmpty();
    }
}
