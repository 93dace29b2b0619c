package io.tandem.protocols.vsync;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.protocols.vsync.layout.Layout;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The restart leader's round (derecho.md §5.9) without an engine: what it asks the engine to send, and when. */
class RestartLeaderTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final NodeId C = NodeId.of("c");
    private static final RestartPlanner.Decision VIEW_7 = new RestartPlanner.Decision(7, List.of(A, B), Layout.EMPTY, Map.of());

    private final RestartLeader leader = new RestartLeader();
    /** The report sets the decide function saw, one per step that decided. */
    private final List<List<NodeId>> decidedFrom = new ArrayList<>();

    private RestartPlanner.Outcome decideOnceTwoReported(Collection<RestartPlanner.Report> reports) {
        decidedFrom.add(reports.stream().map(RestartPlanner.Report::from).sorted().toList());
        return reports.size() >= 2 ? new RestartPlanner.Decided(VIEW_7) : new RestartPlanner.Waiting("only " + reports.size());
    }

    private static RestartPlanner.Report report(NodeId from) {
        return new RestartPlanner.Report(from, 6, 0, List.of(A, B, C), List.of(List.of(A, B, C)), Set.of(), Map.of());
    }

    private RestartLeader.Step step() {
        return leader.step(this::decideOnceTwoReported);
    }

    @Test
    void waitsForAQuorumThenOneMorePeriodThenPrepares() {
        leader.report(report(A));
        assertThat(step()).isEqualTo(new RestartLeader.Wait());
        assertThat(leader.waiting()).isEqualTo("only 1");

        leader.report(report(B));
        assertThat(step()).as("stragglers get one more period").isEqualTo(new RestartLeader.Wait());
        assertThat(leader.waiting()).isNull();
        assertThat(step()).isEqualTo(new RestartLeader.Prepare(VIEW_7));
        assertThat(decidedFrom).containsExactly(List.of(A), List.of(A, B), List.of(A, B));
    }

    @Test
    void commitsOnlyOnceEveryMemberOfTheDecisionLoggedIt() {
        prepareView7();
        assertThat(leader.ack(C, 7)).as("C is not in the decision").isFalse();
        assertThat(leader.ack(A, 6)).as("an ack of another view").isFalse();
        assertThat(leader.acked(A)).isFalse();
        assertThat(leader.ack(A, 7)).isFalse();
        assertThat(step()).as("B has not logged it: send the prepare again").isEqualTo(new RestartLeader.Prepare(VIEW_7));
        assertThat(leader.acked(A)).isTrue();
        assertThat(leader.acked(B)).isFalse();

        assertThat(leader.ack(B, 7)).isTrue();
        assertThat(step()).isEqualTo(new RestartLeader.Commit(VIEW_7));
        assertThat(leader.committed()).isEqualTo(VIEW_7);
        assertThat(leader.ack(A, 7)).as("nothing is prepared after the commit").isFalse();
    }

    @Test
    void hearsEveryoneAfreshWhenTheAcksDoNotComeWithinTheRetries() {
        prepareView7();
        leader.ack(A, 7);
        for (int i = 0; i < RestartLeader.MAX_PREPARE_RETRIES; i++) {
            assertThat(step()).isEqualTo(new RestartLeader.Prepare(VIEW_7));
        }
        assertThat(step()).isEqualTo(new RestartLeader.Wait());
        assertThat(leader.committed()).isNull();

        decidedFrom.clear();
        assertThat(step()).as("the old reports are gone").isEqualTo(new RestartLeader.Wait());
        assertThat(decidedFrom).containsExactly(List.of());
        assertThat(leader.ack(B, 7)).as("the old decision is gone").isFalse();
    }

    private void prepareView7() {
        leader.report(report(A));
        leader.report(report(B));
        step();
        assertThat(step()).isEqualTo(new RestartLeader.Prepare(VIEW_7));
    }
}
