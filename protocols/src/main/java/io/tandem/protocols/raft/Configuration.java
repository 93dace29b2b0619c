package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The membership of a Raft group: voters decide elections and commits; learners receive the log
 * without voting (Raft thesis §4.2.1) and can later be promoted. Both lists are sorted and disjoint,
 * so equal memberships are equal records on every node.
 */
public record Configuration(List<NodeId> voters, List<NodeId> learners) {
    public Configuration {
        voters = sorted(voters);
        learners = sorted(learners);
        for (NodeId l : learners) {
            if (voters.contains(l)) throw new IllegalArgumentException(l + " cannot be both a voter and a learner");
        }
    }

    public static Configuration ofVoters(Collection<NodeId> voters) {
        return new Configuration(List.copyOf(voters), List.of());
    }

    private static List<NodeId> sorted(Collection<NodeId> nodes) {
        return List.copyOf(new TreeSet<>(nodes));
    }

    public boolean isVoter(NodeId node) {
        return voters.contains(node);
    }

    public boolean isLearner(NodeId node) {
        return learners.contains(node);
    }

    public boolean contains(NodeId node) {
        return isVoter(node) || isLearner(node);
    }

    /** Voters and learners, voters first. */
    public List<NodeId> members() {
        List<NodeId> all = new ArrayList<>(voters);
        all.addAll(learners);
        return all;
    }

    /** The votes needed for a decision: a strict majority of the voters. */
    public int quorum() {
        return voters.size() / 2 + 1;
    }

    public Configuration withLearner(NodeId node) {
        List<NodeId> l = new ArrayList<>(learners);
        l.add(node);
        return new Configuration(voters, l);
    }

    public Configuration withPromoted(NodeId node) {
        List<NodeId> v = new ArrayList<>(voters);
        v.add(node);
        List<NodeId> l = new ArrayList<>(learners);
        l.remove(node);
        return new Configuration(v, l);
    }

    public Configuration without(NodeId node) {
        List<NodeId> v = new ArrayList<>(voters);
        v.remove(node);
        List<NodeId> l = new ArrayList<>(learners);
        l.remove(node);
        return new Configuration(v, l);
    }

    @Override
    public String toString() {
        return learners.isEmpty() ? "voters" + voters : "voters" + voters + " learners" + learners;
    }
}
