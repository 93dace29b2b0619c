package io.tandem.protocols.vsync;

import io.tandem.sst.SstLayout;

/**
 * The SST row of the virtual-synchrony engine, declared once (derecho.md §2.3): the membership
 * fields, then one {@link Block} of data-path columns per subgroup of the layout function (every
 * member of a shard is a sender). The control fields run from {@link #vid} to {@link #lastCounter}
 * and are pushed as one range; the flags {@link #wedged} and {@link #trimReady} are pushed again on
 * their own after it, and each SMC ring's guard ({@link Block#index}) after its slots (derecho.md
 * §2.5 R5: a flag or a guard never rides in the write whose data it vouches for).
 */
final class VsyncRow {
    /** The view this row belongs to; a row of another view counts as empty (the SST is per view). */
    final SstLayout.Column vid;
    /** A random number per process: a different one in the same view is a restarted process. */
    final SstLayout.Column nonce;
    /** Bumped every heartbeat: a member whose word stops moving is suspected (derecho.md §5.1). */
    final SstLayout.Column heartbeat;
    /** Bit r: I suspect rank r. Only grows in a view; everyone ORs everyone's (derecho.md §2.8). */
    final SstLayout.Column suspected;
    final SstLayout.Column wedged;
    /** Rank + 1 of the leader whose proposal {@link #changes} holds (0: none). */
    final SstLayout.Column proposer;
    final SstLayout.Column numChanges;
    final SstLayout.Column numAcked;
    /** Node numbers + 1 (index in the configured members): remove if in the view, add otherwise (derecho.md §5.5). */
    final SstLayout.Array changes;
    /** Rank + 1 of the leader whose trim (each block's {@link Block#trim}) is (derecho.md §5.6). */
    final SstLayout.Column trimLeader;
    /** One block of data-path columns per subgroup, in the layout function's order (derecho.md §2.3: vectors per subgroup). */
    final java.util.List<Block> blocks;
    /** The last counter of the control range (pushed as one write from {@link #vid}). */
    final SstLayout.Field lastCounter;
    /** Set after the trim fields are pushed: the trim is published or echoed. */
    final SstLayout.Column trimReady;
    final SstLayout layout;
    final int window;
    final int slotBytes;

    /**
     * The columns of one subgroup. A member serves at most one shard of a subgroup, so one block
     * serves whichever shard of it the member is in during a view; vectors are indexed by shard rank,
     * except {@link #trim}, indexed by view rank (shards of a subgroup are disjoint, so a view rank is a
     * sender of at most one of them, and the leader's one row carries the trim of every shard).
     */
    static final class Block {
        /** Per view rank: how many of that sender's messages its shard delivers in this view (the ragged trim). */
        final SstLayout.Array trim;
        /** Per shard rank: how many of its messages I hold, without a gap (num_received). */
        final SstLayout.Array received;
        /** How many messages of the shard's round-robin order I hold without a gap (seq_num + 1). */
        final SstLayout.Column seq;
        /** How many positions of the shard's round-robin order I delivered (delivered_num + 1). */
        final SstLayout.Column delivered;
        /**
         * Durable shards (derecho.md §4.1 {@code persisted_num}): 0 while I do not hold the shard's whole
         * history on disk, else one more than the highest version my log holds durably. The shard's
         * persisted frontier is the minimum over its members.
         */
        final SstLayout.Column persisted;
        /** SMC guard: how many messages (nulls included) I put in my ring of this subgroup in this view. */
        SstLayout.Column index;
        SstLayout.Bytes slots;
        final String name;

        private Block(SstLayout.Builder b, String name, int maxMembers) {
            this.name = name;
            trim = b.array(name + ".trim", maxMembers);
            received = b.array(name + ".received", maxMembers);
            seq = b.column(name + ".seq");
            delivered = b.column(name + ".delivered");
            persisted = b.column(name + ".persisted");
        }
    }

    VsyncRow(VsyncConfig config) {
        this(config, 1);
    }

    VsyncRow(VsyncConfig config, int subgroups) {
        SstLayout.Builder b = SstLayout.builder();
        vid = b.column("vid");
        nonce = b.column("nonce");
        heartbeat = b.column("heartbeat");
        suspected = b.column("suspected");
        wedged = b.column("wedged");
        proposer = b.column("proposer");
        numChanges = b.column("num_changes");
        numAcked = b.column("num_acked");
        changes = b.array("changes", 2 * config.maxMembers());
        trimLeader = b.column("trim_leader");
        java.util.List<Block> bs = new java.util.ArrayList<>();
        for (int g = 0; g < subgroups; g++) bs.add(new Block(b, "sg" + g, config.maxMembers()));
        lastCounter = bs.getLast().persisted;
        trimReady = b.column("trim_ready");
        for (Block block : bs) block.index = b.column(block.name + ".index");
        for (Block block : bs) block.slots = b.bytes(block.name + ".slots", config.window() * config.slotBytes());
        blocks = java.util.List.copyOf(bs);
        layout = b.build();
        window = config.window();
        slotBytes = config.slotBytes();
    }

    int slotOffset(long senderIndex) {
        return (int) (senderIndex % window) * slotBytes;
    }
}
