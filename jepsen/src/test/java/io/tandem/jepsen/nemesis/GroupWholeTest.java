package io.tandem.jepsen.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.kv.net.NodeStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one-at-a-time schedule's "every node is back" test ({@link Nemesis#groupWhole}). */
class GroupWholeTest {
    private static final List<String> ALL = List.of("n1", "n2", "n3");

    private static NodeStatus status(String node, String role, long epoch, List<String> voters) {
        return new NodeStatus(node, "c", "virtual-synchrony", role, "n1", null, epoch, 0, 0, voters, List.of(), Map.of(), 1, 1, true, List.of());
    }

    private static Map<String, Object> statuses(Object n1, Object n2, Object n3) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n1", n1);
        m.put("n2", n2);
        m.put("n3", n3);
        return m;
    }

    @Test
    void wholeWhenEveryNodeIsAMemberOfTheSameFullEpoch() {
        assertThat(Nemesis.groupWhole(statuses(status("n1", "LEADER", 4, ALL), status("n2", "FOLLOWER", 4, ALL), status("n3", "FOLLOWER", 4, ALL)), 3)).isTrue();
    }

    @Test
    void notWholeWhileANodeIsOutOfTheViewJoiningOrBehind() {
        List<String> two = List.of("n1", "n2");
        // the survivors' view without n3, while n3 still answers from the old view
        assertThat(Nemesis.groupWhole(statuses(status("n1", "LEADER", 2, two), status("n2", "FOLLOWER", 2, two), status("n3", "FOLLOWER", 1, ALL)), 3)).isFalse();
        // n3 is joining
        assertThat(Nemesis.groupWhole(statuses(status("n1", "LEADER", 2, two), status("n2", "FOLLOWER", 2, two), status("n3", "NOT_MEMBER", 0, List.of())), 3)).isFalse();
        // n3 does not answer (killed, paused)
        assertThat(Nemesis.groupWhole(statuses(status("n1", "LEADER", 3, ALL), status("n2", "FOLLOWER", 3, ALL), "connection refused"), 3)).isFalse();
        // n3 installed the next view before the others
        assertThat(Nemesis.groupWhole(statuses(status("n1", "LEADER", 3, ALL), status("n2", "FOLLOWER", 3, ALL), status("n3", "FOLLOWER", 4, ALL)), 3)).isFalse();
    }
}
