package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import java.util.List;

/**
 * Variants of the virtual-synchrony engine for tests only: the spec's broken rules (derecho.md §9,
 * "trim without the minimum", "delivery before stability"), which the simulation must catch, and a
 * leader that falls silent in the middle of a push, for the directed failures of §9.3 S5/S6.
 */
final class VsyncTwins {
    private VsyncTwins() {}

    /** The leader trims at the most any unsuspected member holds, not the least: a member then must deliver what it never received, or members deliver different sets. */
    static VirtualSynchronyProtocol trimWithoutMinimum(VsyncConfig config) {
        return new VirtualSynchronyProtocol(config) {
            @Override
            public String name() {
                return "vsync-broken-trim-without-minimum";
            }

            @Override
            protected VsyncEngine newEngine(NodeId self, List<NodeId> members) {
                return new VsyncEngine(self, members, config) {
                    @Override
                    protected long trimFor(ShardId shard, int sender) {
                        long max = 0;
                        for (NodeId m : shardMembers(shard)) max = Math.max(max, receivedBy(m, shard, sender));
                        return max;
                    }
                };
            }
        };
    }

    /** Delivers what this member holds without waiting for everyone to hold it: after a crash the trim may leave out what it delivered. */
    static VirtualSynchronyProtocol deliveryBeforeStability(VsyncConfig config) {
        return new VirtualSynchronyProtocol(config) {
            @Override
            public String name() {
                return "vsync-broken-delivery-before-stability";
            }

            @Override
            protected VsyncEngine newEngine(NodeId self, List<NodeId> members) {
                return new VsyncEngine(self, members, config) {
                    @Override
                    protected long stableCount(ShardId shard) {
                        return ownSeq(shard);
                    }
                };
            }
        };
    }

    /** Member {@code leader}, as leader of view {@code viewId}, pushes its {@code step} to one follower and falls silent. */
    static VirtualSynchronyProtocol leaderStopsAfter(VsyncConfig config, NodeId leader, String step, long viewId) {
        return new VirtualSynchronyProtocol(config) {
            @Override
            protected VsyncEngine newEngine(NodeId self, List<NodeId> members) {
                return new VsyncEngine(self, members, config) {
                    @Override
                    protected boolean stopAfterPublishing(String s, long v) {
                        return self.equals(leader) && s.equals(step) && v == viewId;
                    }
                };
            }
        };
    }

    /** A joiner that writes every copy of the state it is sent, even while a whole copy is still with the store (the bug of seed 18). */
    static VirtualSynchronyProtocol stateWrittenTwice(VsyncConfig config) {
        return new VirtualSynchronyProtocol(config) {
            @Override
            public String name() {
                return "vsync-broken-state-written-twice";
            }

            @Override
            protected VsyncEngine newEngine(NodeId self, List<NodeId> members) {
                return new VsyncEngine(self, members, config) {
                    @Override
                    protected boolean acceptsStateWhileInstalling() {
                        return true;
                    }
                };
            }
        };
    }
}
