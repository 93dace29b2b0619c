package io.tandem.peers.driver;

/** What a replica currently is, as far as the benchmark needs to know: the harness slows a leader or a follower. */
public enum Role {
    LEADER,
    FOLLOWER,
    /** Candidate, learner, starting, stopped: neither leads nor follows a leader right now. */
    OTHER
}
