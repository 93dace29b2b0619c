package io.tandem.protocols.failslow;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.protocols.testing.TestMeters;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The detector's rules on hand-made bookkeeping; the engines' tests show them firing in whole runs. */
class SlownessDetectorTest {
    private static final NodeId A = NodeId.of("a"), B = NodeId.of("b"), C = NodeId.of("c"), D = NodeId.of("d"), E = NodeId.of("e");
    private static final List<NodeId> GROUP = List.of(A, B, C);
    private static final SlownessDetector.Vocabulary WORDS = new SlownessDetector.Vocabulary(
            "tandem.test.peer", "tandem.test.decision", "tandem.test.replica", "entries", "decisions", "answered");
    private static final long MS = 1_000_000;

    private final TestMeters meters = new TestMeters();
    private final SlownessDetector detector = new SlownessDetector(meters, WORDS, 4, 100 * MS);

    @Test
    void aWindowOverItsBoundIsAnOutboxOverTheCapAndEveryWindowIsMetered() {
        PeerLink fine = new PeerLink(A, 0);
        fine.sent(1, 1, 10, 0);
        PeerLink over = new PeerLink(B, 0);
        for (int i = 0; i < 5; i++) over.sent(i, i, 10, 0);
        detector.sampleLink(fine, 4, 1000, "");
        detector.sampleLink(over, 4, 1000, ", lag 7");
        assertThat(meters.warnings).singleElement().satisfies(w -> {
            assertThat(w.kind()).isEqualTo(SlownessDetector.OUTBOX_OVER_CAP);
            assertThat(w.peer()).isEqualTo(B);
            assertThat(w.detail()).endsWith(", lag 7");
        });
        assertThat(meters.value("tandem.test.peer.inflight", "peer", "b")).isEqualTo(5);
        assertThat(meters.value("tandem.test.peer.inflight_bytes", "peer", "a")).isEqualTo(10);
        detector.lag(C, 12);
        detector.lag(D, -3);
        assertThat(meters.value("tandem.test.replica.lag", "peer", "c")).isEqualTo(12);
        assertThat(meters.value("tandem.test.replica.lag", "peer", "d")).as("never negative").isZero();
    }

    @Test
    void moreThanTwoResendsOfTheSameRangeInARowAreAStorm() {
        detector.resent(A, 5, 0);
        detector.resent(A, 5, 1);
        detector.resent(A, 5, 2);
        assertThat(meters.warnings).isEmpty();
        detector.resent(A, 5, 3);
        assertThat(meters.warnings(SlownessDetector.RESEND_STORM)).isEqualTo(1);
        assertThat(meters.value("tandem.test.peer.resends", "peer", "a")).isEqualTo(4);
        assertThat(detector.warnings()).isEqualTo(1);
        assertThat(detector.warningsByKind()).isEqualTo(Map.of(SlownessDetector.RESEND_STORM, 1L));
    }

    @Test
    void aQuorumThatNeededEveryMemberIsASinglePeerWaitOnItsLastMember() {
        detector.quorumFormed(List.of(A, B), B, 3, 5, 0);
        detector.quorumFormed(List.of(A, B, C), C, 3, 5, 1);
        detector.quorumFormed(List.of(A, B), B, 2, 5, 2); // a group of two always needs both: inherent
        detector.sampleQuorums(GROUP, QuorumRule.atLeast(2), 3);
        assertThat(meters.warnings).singleElement().satisfies(w -> {
            assertThat(w.kind()).isEqualTo(SlownessDetector.SINGLE_PEER_WAIT);
            assertThat(w.peer()).isEqualTo(C);
        });
        assertThat(meters.value("tandem.test.peer.single_peer_waits", "peer", "c")).isEqualTo(1);
        detector.sampleQuorums(GROUP, QuorumRule.atLeast(2), 4);
        assertThat(meters.warnings).as("reported once per sample").hasSize(1);
    }

    @Test
    void quorumsThatAlwaysLeaveOutTheSameMemberAreReportedOnceTheWindowIsFullAndLongEnough() {
        for (int i = 0; i < 4; i++) detector.quorumFormed(List.of(A, B), B, 3, 1, i * MS);
        detector.sampleQuorums(GROUP, QuorumRule.atLeast(2), 50 * MS);
        assertThat(meters.warnings).as("4 quorums, but within 50 ms: one lost message is not a pattern").isEmpty();
        detector.quorumFormed(List.of(B, A), A, 3, 1, 120 * MS);
        detector.sampleQuorums(GROUP, QuorumRule.atLeast(2), 120 * MS);
        assertThat(meters.warnings).singleElement().satisfies(w -> {
            assertThat(w.kind()).isEqualTo(SlownessDetector.SAME_QUORUM);
            assertThat(w.peer()).isEqualTo(C);
        });
        detector.sampleQuorums(GROUP, QuorumRule.atLeast(2), 121 * MS);
        assertThat(meters.warnings).as("the window starts over after a report").hasSize(1);
    }

    @Test
    void quorumsThatRotateOrThatAreNotMinimalAreHealthy() {
        List<List<NodeId>> rotating = List.of(List.of(A, B), List.of(B, C), List.of(A, C), List.of(A, B));
        for (int i = 0; i < 4; i++) detector.quorumFormed(rotating.get(i), rotating.get(i).get(1), 3, 1, i * 50 * MS);
        detector.sampleQuorums(GROUP, QuorumRule.atLeast(2), 200 * MS);
        assertThat(meters.warnings).isEmpty();
        List<NodeId> five = List.of(A, B, C, D, E);
        detector.resetQuorumHistory();
        for (int i = 0; i < 4; i++) detector.quorumFormed(List.of(A, B, C, D), D, 5, 1, i * 50 * MS);
        detector.sampleQuorums(five, QuorumRule.atLeast(3), 200 * MS);
        assertThat(meters.warnings).as("four of five with a majority rule: one to spare").isEmpty();
    }

    @Test
    void theSameQuorumRuleFollowsAnyQuorumSystemNotACount() {
        QuorumRule rows = s -> s.containsAll(Set.of(A, B)) || s.containsAll(Set.of(C, D));
        List<NodeId> grid = List.of(A, B, C, D);
        for (int i = 0; i < 4; i++) detector.quorumFormed(List.of(C, D), D, 4, 1, i * 50 * MS);
        detector.sampleQuorums(grid, rows, 200 * MS);
        assertThat(meters.warnings).extracting(TestMeters.Warning::peer).containsExactly(A, B);
        assertThat(meters.value("tandem.test.decision.overdue")).isZero();
        detector.overdue(2);
        detector.overdue(0);
        assertThat(meters.value("tandem.test.decision.overdue")).isEqualTo(2);
    }
}
