package io.tandem.protocols.multipaxos;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.protocols.failslow.QuorumRule;
import io.tandem.roles.Deployment;
import java.util.Locale;

/**
 * The unsafe variants of Compartmentalized MultiPaxos (spec §7.5), as broken twins in test code
 * only: each plants one bug through the node's {@link Roles}, by overriding one seam of a shipped
 * role ({@link Frontend#linearizableRead}, {@link Frontend#readQuorums}, {@link Frontend#sealsReadRounds},
 * {@link Acceptor#maxVotedSlotForReads}, {@link Replica#readSlot}, {@link Replica#committed},
 * {@link Leader#dropsDuplicates}, {@link Frontend#sendCommand}); the shipped roles have no flag for any.
 */
final class BrokenCompartments {
    enum Unsafe {
        /** §7.5.1: no PreRead; the replica answers at once, at whatever it executed. */
        READ_AT_LOCAL_WATERMARK,
        /** §7.5.2: the read index comes from a write quorum (a column, any transversal) instead of a read quorum (a row). */
        PREREAD_TO_A_COLUMN,
        /** §7.5.3: reads arriving while a read round's query is out join that round (admitted after the PreRead, LR-1). */
        READ_JOINS_ROUND_IN_FLIGHT,
        /** §7.5.4: an acceptor reports the highest slot it voted in at its current ballot only (LR-3). */
        MAX_VOTED_SLOT_OF_CURRENT_BALLOT_ONLY,
        /** §7.5.5: the replica serves a read at index i once it executed slot i - 1 (LR-4). */
        READ_AFTER_SLOT_I_MINUS_1,
        /** §7.5.7: no client table (sessions stripped, duplicates kept) and every command resent once. */
        CLIENT_TABLE_OFF_WITH_RESEND;

        String protocolName() {
            return "multipaxos-unsafe-" + name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private BrokenCompartments() {}

    static MultiPaxosProtocol protocol(Unsafe bug, MultiPaxosConfig config, Deployment deployment) {
        return new MultiPaxosProtocol(bug.protocolName(), config.toBuilder().deployment(deployment).build(), roles(bug), null);
    }

    private static Roles roles(Unsafe bug) {
        return switch (bug) {
            case READ_AT_LOCAL_WATERMARK -> new Roles() {
                @Override
                public Frontend frontend(RoleContext rc, boolean batching) {
                    return new Frontend(rc, batching) {
                        @Override
                        void linearizableRead(long requestId) {
                            // Slot 0 is always executed: the local replica answers from its state now.
                            rc.send(rc.self, new MultiPaxosMessage.ReadAt(requestId, 0, rc.config.readTimeout().toNanos()));
                        }
                    };
                }
            };
            case PREREAD_TO_A_COLUMN -> new Roles() {
                @Override
                public Frontend frontend(RoleContext rc, boolean batching) {
                    return new Frontend(rc, batching) {
                        @Override
                        QuorumRule readQuorums() {
                            return rc.topology.quorums().writeRule();
                        }

                        @Override
                        java.util.List<io.tandem.engine.NodeId> firstReadQuorum(int k) {
                            return rc.topology.quorums().writeQuorum(k);
                        }
                    };
                }
            };
            case READ_JOINS_ROUND_IN_FLIGHT -> new Roles() {
                @Override
                public Frontend frontend(RoleContext rc, boolean batching) {
                    return new Frontend(rc, batching) {
                        @Override
                        boolean sealsReadRounds() {
                            return false;
                        }
                    };
                }
            };
            case MAX_VOTED_SLOT_OF_CURRENT_BALLOT_ONLY -> new Roles() {
                @Override
                public Acceptor acceptor(RoleContext rc, boolean recordHistory) {
                    return new Acceptor(rc, recordHistory) {
                        @Override
                        long maxVotedSlotForReads() {
                            long max = 0;
                            for (var e : votesView().entrySet()) {
                                if (e.getValue().ballot().equals(promised())) max = Math.max(max, e.getKey());
                            }
                            return max;
                        }
                    };
                }
            };
            case READ_AFTER_SLOT_I_MINUS_1 -> new Roles() {
                @Override
                public Replica replica(RoleContext rc, boolean recordHistory) {
                    return new Replica(rc, recordHistory) {
                        @Override
                        long readSlot(long i) {
                            return Math.max(0, i - 1);
                        }
                    };
                }
            };
            case CLIENT_TABLE_OFF_WITH_RESEND -> new Roles() {
                @Override
                public Leader leader(RoleContext rc) {
                    return new Leader(rc) {
                        @Override
                        boolean dropsDuplicates() {
                            return false;
                        }
                    };
                }

                @Override
                public Replica replica(RoleContext rc, boolean recordHistory) {
                    return new Replica(rc, recordHistory) {
                        @Override
                        Committed committed(Value v, long slot) {
                            Committed c = super.committed(v, slot);
                            return c.isNoop() ? c : new Committed(c.index(), c.origin(), c.requestId(), ClientRequest.Session.NONE, c.command());
                        }
                    };
                }

                @Override
                public Frontend frontend(RoleContext rc, boolean batching) {
                    return new Frontend(rc, batching) {
                        @Override
                        void sendCommand(NodeId to, MultiPaxosMessage m) {
                            super.sendCommand(to, m);
                            super.sendCommand(to, m); // the client's resend, which no client table recognizes
                        }
                    };
                }
            };
        };
    }
}
