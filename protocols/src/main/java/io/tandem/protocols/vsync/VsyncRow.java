package io.tandem.protocols.vsync;

import io.tandem.sst.SstLayout;

/**
 * The SST row of the virtual-synchrony engine, declared once (derecho.md §2.3, simplified to one
 * shard that is the whole view, every member a sender). Vectors are indexed by view rank. The
 * control fields run from {@link #vid} to {@link #delivered} and are pushed as one range; the
 * flags {@link #wedged} and {@link #trimReady} are pushed again on their own after it, and the SMC
 * ring's guard {@link #index} after the slots (derecho.md §2.5 R5: a flag or a guard never rides in
 * the write whose data it vouches for).
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
    /** Rank + 1 of the leader whose trim {@link #trim} is (derecho.md §5.6). */
    final SstLayout.Column trimLeader;
    /** Per sender rank: how many of its messages are delivered in this view (the ragged trim). */
    final SstLayout.Array trim;
    /** Per sender rank: how many of its messages I hold, without a gap (num_received). */
    final SstLayout.Array received;
    /** How many messages of the view's round-robin order I hold without a gap (seq_num + 1). */
    final SstLayout.Column seq;
    /** How many positions of the round-robin order I delivered (delivered_num + 1). */
    final SstLayout.Column delivered;
    /** Set after the trim fields are pushed: the trim is published or echoed. */
    final SstLayout.Column trimReady;
    /** SMC guard: how many messages (nulls included) I put in my ring in this view. */
    final SstLayout.Column index;
    final SstLayout.Bytes slots;
    final SstLayout layout;
    final int window;
    final int slotBytes;

    VsyncRow(VsyncConfig config) {
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
        trim = b.array("trim", config.maxMembers());
        received = b.array("received", config.maxMembers());
        seq = b.column("seq");
        delivered = b.column("delivered");
        trimReady = b.column("trim_ready");
        index = b.column("index");
        slots = b.bytes("slots", config.window() * config.slotBytes());
        layout = b.build();
        window = config.window();
        slotBytes = config.slotBytes();
    }

    int slotOffset(long senderIndex) {
        return (int) (senderIndex % window) * slotBytes;
    }
}
