package io.tandem.examples;

import io.tandem.api.LocalGroup;
import io.tandem.api.ReplicatedNode;
import io.tandem.engine.AdminRequest;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.protocols.Protocols;
import io.tandem.protocols.raft.RaftConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/** A membership change: n3 starts outside the voters, catches up as a learner, then votes. */
public final class Membership {
    private Membership() {}

    public static void main(String[] args) {
        System.out.println("voters " + run(System.out));
    }

    /** Answers the voters at the end. */
    public static List<NodeId> run(PrintStream out) {
        RaftConfig twoVoters = RaftConfig.builder().initialVoters(Set.of(NodeId.of("n1"), NodeId.of("n2"))).build();
        try (LocalGroup group = LocalGroup.start(3, Protocols.raft(twoVoters), Counter::new)) {
            ReplicatedNode leader = group.leader(Duration.ofSeconds(10));
            // README-BEGIN membership
            leader.submit(Counter.add(1)).join();  // a new leader changes membership once it has committed in its term
            NodeId n3 = NodeId.of("n3");
            leader.admin(new AdminRequest.AddLearner(n3)).join();                // receives the log, does not vote
            for (int i = 0; i < 10_000 && leader.status().join().lag().getOrDefault(n3, 1L) > 0; i++) {
                LockSupport.parkNanos(1_000_000);                                // a learner is promoted once it has caught up
            }
            leader.admin(new AdminRequest.Promote(n3)).join();                   // now a voter
            EngineStatus status = leader.status().join();                        // role, leader, voters, learners, lag
            // README-END membership
            out.println("voters " + status.voters() + ", learners " + status.learners());
            return status.voters();
        }
    }
}
