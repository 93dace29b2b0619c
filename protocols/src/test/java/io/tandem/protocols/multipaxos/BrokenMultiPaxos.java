package io.tandem.protocols.multipaxos;

import java.util.Locale;

/**
 * Deliberately broken MultiPaxos engines, which prove that the simulator and the slowness detector
 * can fail. Test code only: each plants one bug through the node's {@link Roles}, with a role that
 * overrides one seam ({@link Leader#startPhase1}, {@link Leader#decisionQuorums},
 * {@link Acceptor#journaled}, {@link Acceptor#promiseDurable},
 * {@link Acceptor#refusesPhase1}, {@link Acceptor#refusesPhase2}, {@link Replica#claimedThrough}); the shipped roles have no flag for it.
 */
public final class BrokenMultiPaxos {
    public enum Bug {
        /** A new leader skips Phase 1 and proposes straight away from its own chosen prefix (safety bug). */
        SKIP_PHASE1("multipaxos-unsafe"),
        /** Acceptors answer Phase 2a before their vote is durable (safety bug after a crash). */
        ACK_BEFORE_DURABLE("multipaxos-unsafe-ack-before-durable"),
        /** A slot counts as chosen only once every acceptor voted: safe, but the slowest acceptor sets every latency (fail-slow bug). */
        WAIT_FOR_ALL_ACCEPTORS("multipaxos-slow-wait-for-all-acceptors"),
        /** Acceptors send Phase 1b before their promise is durable (safety bug after a crash; issue 16: it passed 500 random seeds). */
        PROMISE_BEFORE_DURABLE("multipaxos-unsafe-promise-before-durable"),
        /** Acceptors answer Phase 1a of any ballot, even below their promise (without raising the promise). */
        PROMISE_LOWER_BALLOT("multipaxos-unsafe-promise-lower-ballot"),
        /** Acceptors vote in Phase 2a of any ballot, even below their promise (spec §1.3). */
        ACCEPT_BELOW_PROMISE("multipaxos-unsafe-accept-below-promise"),
        /**
         * A replica takes the chosen claim on an Accept as reaching the Accept's own slots (session 21): it executes
         * proposals the leader does not know chosen, which a later ballot may replace (safety bug).
         */
        CLAIM_BEYOND_LEADER("multipaxos-unsafe-claim-beyond-leader");

        private final String protocolName;

        Bug(String protocolName) {
            this.protocolName = protocolName;
        }

        public String protocolName() {
            return protocolName;
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private BrokenMultiPaxos() {}

    public static MultiPaxosProtocol protocol(Bug bug, MultiPaxosConfig config) {
        return new MultiPaxosProtocol(bug.protocolName(), config, roles(bug), null);
    }

    private static Roles roles(Bug bug) {
        return switch (bug) {
            case SKIP_PHASE1 -> new Roles() {
                @Override
                public Leader leader(RoleContext rc) {
                    return new Leader(rc) {
                        @Override
                        void startPhase1() {
                            becomeLeader(); // assumes its own replica knows every chosen slot
                        }
                    };
                }
            };
            case WAIT_FOR_ALL_ACCEPTORS -> new Roles() {
                @Override
                public Leader leader(RoleContext rc) {
                    return new Leader(rc) {
                        @Override
                        QuorumSystem decisionQuorums() {
                            // Every acceptor must vote: stricter, so still safe, but never quorum-tolerant.
                            var acceptors = super.decisionQuorums().members();
                            return QuorumSystem.threshold(acceptors, 1, acceptors.size());
                        }
                    };
                }
            };
            case PROMISE_BEFORE_DURABLE -> new Roles() {
                @Override
                public Acceptor acceptor(RoleContext rc, boolean recordHistory) {
                    return new Acceptor(rc, recordHistory) {
                        @Override
                        boolean promiseDurable(long token) {
                            return true; // answers as soon as the promise is written, before the disk has it
                        }
                    };
                }
            };
            case PROMISE_LOWER_BALLOT -> new Roles() {
                @Override
                public Acceptor acceptor(RoleContext rc, boolean recordHistory) {
                    return new Acceptor(rc, recordHistory) {
                        @Override
                        boolean refusesPhase1(Ballot ballot) {
                            return false;
                        }
                    };
                }
            };
            case ACCEPT_BELOW_PROMISE -> new Roles() {
                @Override
                public Acceptor acceptor(RoleContext rc, boolean recordHistory) {
                    return new Acceptor(rc, recordHistory) {
                        @Override
                        boolean refusesPhase2(Ballot ballot) {
                            return false;
                        }
                    };
                }
            };
            case CLAIM_BEYOND_LEADER -> new Roles() {
                @Override
                public Replica replica(RoleContext rc, boolean recordHistory) {
                    return new Replica(rc, recordHistory) {
                        @Override
                        long claimedThrough(MultiPaxosMessage.Accept a) {
                            return Math.max(a.chosenThrough(), a.lastSlot()); // "it carries the watermark, so it is chosen too"
                        }
                    };
                }
            };
            case ACK_BEFORE_DURABLE -> new Roles() {
                @Override
                public Acceptor acceptor(RoleContext rc, boolean recordHistory) {
                    return new Acceptor(rc, recordHistory) {
                        @Override
                        long journaled(JournalRun run) {
                            votesDurable(run); // counts the votes before the disk has them
                            return 0;
                        }
                    };
                }
            };
        };
    }
}
