package io.tandem.protocols.raft;

/**
 * What a node holds for the role it has now: a {@link FollowerState}, a {@link CandidateState} or a
 * {@link LeaderState}. {@link RaftEngine} keeps exactly one and replaces it on every role change, so
 * a role's state exists only while the node has that role: a leader's replication progress, commit
 * rounds and read bookkeeping are dropped on step-down, and code that runs for a follower has no
 * leader state it could read or change by mistake (it must match {@code LeaderState} first).
 */
sealed interface RoleState permits FollowerState, CandidateState, LeaderState {}
