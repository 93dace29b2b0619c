package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BallotTest {
    @Test
    void ballotsAreOrderedByRoundThenProposer() {
        List<Ballot> ballots = new ArrayList<>(List.of(new Ballot(2, 0), new Ballot(1, 2), Ballot.ZERO, new Ballot(1, 0), new Ballot(2, 1)));
        ballots.sort(null);
        assertThat(ballots).containsExactly(Ballot.ZERO, new Ballot(1, 0), new Ballot(1, 2), new Ballot(2, 0), new Ballot(2, 1));
        assertThat(new Ballot(3, 0).greaterThan(new Ballot(2, 9))).isTrue();
        assertThat(new Ballot(3, 1).lessThan(new Ballot(3, 2))).isTrue();
        assertThat(Ballot.max(new Ballot(3, 1), new Ballot(3, 2))).isEqualTo(new Ballot(3, 2));
        assertThat(new Ballot(1, 0).compareTo(new Ballot(1, 0))).isZero();
    }

    @Test
    void zeroIsBelowEveryRealBallotAndOnlyZeroHasRoundZero() {
        assertThat(Ballot.ZERO.isZero()).isTrue();
        assertThat(Ballot.ZERO.lessThan(new Ballot(1, 0))).isTrue();
        assertThatThrownBy(() -> new Ballot(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Ballot(1, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Ballot(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
