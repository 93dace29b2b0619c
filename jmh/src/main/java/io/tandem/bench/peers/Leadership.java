package io.tandem.bench.peers;

import java.util.ArrayList;
import java.util.List;

/**
 * Who leads, from the replicas' role files ({@code LEADER}, {@code FOLLOWER} or {@code OTHER}, kept
 * current by {@code PeerMain replica}), and the leader changes seen while the load ran.
 */
final class Leadership {
    /** A change of leader seen at load second {@code second}: from replica {@code from} (-1: none known yet) to {@code to}. */
    record Change(int second, int from, int to) {}

    private final List<Change> changes = new ArrayList<>();
    private int current = -1;
    private int first = -1;

    /** The index of the one replica whose role is LEADER; -1 if none or several claim it. */
    static int singleLeader(List<String> roles) {
        int leader = -1;
        for (int i = 0; i < roles.size(); i++) {
            if ("LEADER".equals(roles.get(i))) {
                if (leader >= 0) return -1;
                leader = i;
            }
        }
        return leader;
    }

    /**
     * The replica to slow down as "a follower": the last one reporting FOLLOWER, else the last one
     * that is not the leader (some systems report followers as OTHER); -1 if there is none.
     */
    static int follower(List<String> roles, int leader) {
        for (int i = roles.size() - 1; i >= 0; i--) if (i != leader && "FOLLOWER".equals(roles.get(i))) return i;
        for (int i = roles.size() - 1; i >= 0; i--) if (i != leader) return i;
        return -1;
    }

    /** Records an observation at load second {@code second}; moments without a single leader are ignored. */
    synchronized void observe(int second, int leader) {
        if (leader < 0 || leader == current) return;
        if (current >= 0) changes.add(new Change(second, current, leader));
        else first = leader;
        current = leader;
    }

    synchronized int current() {
        return current;
    }

    synchronized int first() {
        return first;
    }

    synchronized List<Change> changes() {
        return List.copyOf(changes);
    }

    /** Leader changes seen in load seconds {@code (from, to]}. */
    synchronized int changesIn(int from, int to) {
        return (int) changes.stream().filter(c -> c.second() > from && c.second() <= to).count();
    }
}
