package io.tandem.protocols.vsync.rdmc;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * One member's part in moving one large message along a {@link Schedule} (derecho.md §3.3, the
 * per-message handshake): a deterministic state machine with no I/O of its own. The caller feeds it
 * what arrived ({@link #onReady}, {@link #onBlock}) and carries out what it answers: the blocks to
 * send, the ready-for-block signals, and the completed message.
 *
 * <p><b>Receiver-driven flow control.</b> A member holds one receive buffer: it tells the member it
 * will receive its next block from that it is ready ({@link Action.Ready}) only once every earlier
 * block it was to receive has arrived, and a member sends a block only to a receiver that said it is
 * ready for that step. A block that arrives out of step is refused, not buffered.
 *
 * <p><b>The first block unasked (session 15).</b> With {@code firstBlockUnasked} (both factories take it; every
 * member of a transfer must use the same setting) a receiver's <em>first</em> block is sent without its ask: the
 * receiver's buffer is free until its first block arrives, so the ask only tells the sender something it knows.
 * It saves one message and one hop per receiver and transfer (the whole exchange of a one-block message). Every
 * later block is still asked for, so a receiver still holds one block in flight at a time. A first block lost on
 * the way is asked for by the caller's repeat ({@link #waitingFor}), which works as before.
 *
 * <p><b>Why it never deadlocks.</b> Each member sends its transfers in step order and asks for its
 * incoming ones in step order. By induction on the step: if every transfer of the steps before t has
 * completed, a transfer of step t from u to v can run, because u received its block in an earlier
 * step (the schedule's rule), u's earlier sends are done, and v has received everything it was to
 * receive before t, so it has said it is ready for t.
 *
 * <p>A failure is not handled here: as in Derecho, the layer above learns of a suspected member,
 * wedges, and abandons the session (a message may then have reached some receivers only).
 */
public final class Session {
    /** What the caller must do. */
    public sealed interface Action {
        /**
         * Send block {@code block} of the message, {@code length} bytes of {@code message} from {@code offset}, to member
         * {@code to} as step {@code step}'s transfer. A slice of the message buffer, not a copy (a 1 MiB block was copied
         * once per send before): safe because a session never writes a block it holds again (a block is written once,
         * when it arrives, before it is held), and a caller writes nothing into the buffer.
         */
        record SendBlock(int to, int step, int block, byte[] message, int offset, int length) implements Action {
            public SendBlock {
                java.util.Objects.checkFromIndexSize(offset, length, message.length);
            }

            /** A copy of the block's bytes (for tests). */
            public byte[] bytes() {
                return java.util.Arrays.copyOfRange(message, offset, offset + length);
            }
        }

        /** Tell member {@code to} that this member is ready for the block of step {@code step}. */
        record Ready(int to, int step) implements Action {}

        /** Every block is here: the whole message, exactly {@code size} bytes. */
        record Completed(byte[] message) implements Action {}

        /** Input that does not fit the schedule, refused and otherwise ignored; says why. */
        record Refused(String reason) implements Action {}
    }

    private final Schedule schedule;
    private final int rank;
    private final int blockSize;
    private final byte[] message;
    private final List<Schedule.Transfer> incoming;
    private final List<Schedule.Transfer> outgoing;
    /** The step of each transfer: {@code stepOf[0][i]} of {@code incoming.get(i)}, {@code stepOf[1][i]} of {@code outgoing.get(i)}. */
    private final int[][] stepOf;
    /** Bit i: the receiver of {@code outgoing.get(i)} said it is ready for it. */
    private final BitSet readyFromReceivers = new BitSet();
    private final BitSet held;
    private int nextIncoming;
    private int nextOutgoing;
    private boolean completed;
    /** Whether receivers' first blocks go without an ask (see the class comment). */
    private final boolean firstBlockUnasked;

    private Session(Schedule schedule, int rank, int blockSize, byte[] message, boolean isSender, boolean firstBlockUnasked) {
        this.schedule = schedule;
        this.rank = rank;
        this.blockSize = blockSize;
        this.message = message;
        this.incoming = schedule.transfersOf(rank, false);
        this.outgoing = schedule.transfersOf(rank, true);
        this.held = new BitSet(schedule.blocks());
        if (isSender) held.set(0, schedule.blocks());
        this.firstBlockUnasked = firstBlockUnasked;
        this.stepOf = stepsOf(schedule, rank, incoming.size(), outgoing.size());
        if (firstBlockUnasked) {
            // An outgoing transfer that is its receiver's first incoming one needs no ask: the receiver is ready for it.
            int[] firstIn = firstIncomingSteps(schedule);
            for (int i = 0; i < outgoing.size(); i++) if (stepOf[1][i] == firstIn[outgoing.get(i).to()]) readyFromReceivers.set(i);
        }
    }

    private static int[][] stepsOf(Schedule schedule, int rank, int incoming, int outgoing) {
        int[] in = new int[incoming];
        int[] out = new int[outgoing];
        int i = 0;
        int o = 0;
        for (int t = 0; t < schedule.steps(); t++) {
            for (Schedule.Transfer x : schedule.step(t)) {
                if (x.to() == rank) in[i++] = t;
                if (x.from() == rank) out[o++] = t;
            }
        }
        return new int[][] {in, out};
    }

    /** Per rank, the step of its first incoming transfer (-1 for the sender). */
    private static int[] firstIncomingSteps(Schedule schedule) {
        int[] first = new int[schedule.members()];
        java.util.Arrays.fill(first, -1);
        for (int t = 0; t < schedule.steps(); t++) {
            for (Schedule.Transfer x : schedule.step(t)) if (first[x.to()] < 0) first[x.to()] = t;
        }
        return first;
    }

    /**
     * A message's last block of at most {@code blockSize / TAIL_FRACTION} bytes rides with the block before it, which
     * is then that much longer (session 18, rdmc15): the channel API puts its name in front of a payload, so a 1 MiB
     * payload was a full block of 1 MiB and a second block of a few bytes, asked for and sent as a transfer of its own
     * (the loopback benchmark measured 1.1-1.25x the bandwidth at 1 MiB with one block per message). A block is thus
     * at most {@code blockSize + blockSize / TAIL_FRACTION} bytes.
     */
    public static final int TAIL_FRACTION = 16;

    /**
     * How many blocks of {@code blockSize} a message of {@code size} bytes takes (at least one): every block
     * {@code blockSize} bytes but the last, which holds the rest (up to {@code blockSize}, or up to
     * {@code blockSize + blockSize / TAIL_FRACTION} when a short tail rides with it, {@link #TAIL_FRACTION}).
     */
    public static int blocksFor(int size, int blockSize) {
        if (size < 0) throw new IllegalArgumentException("size must be >= 0, was " + size);
        if (blockSize < 1) throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
        int full = size / blockSize;
        int rest = size % blockSize;
        if (full == 0) return 1;
        return rest == 0 || rest <= blockSize / TAIL_FRACTION ? full : full + 1;
    }

    /** The sender's session (rank 0) for {@code message}; its schedule must have {@link #blocksFor} blocks. Every block is asked for. */
    public static Session sender(Schedule schedule, int blockSize, byte[] message) {
        return sender(schedule, blockSize, message, false);
    }

    /** The sender's session; {@code firstBlockUnasked}: receivers' first blocks go without an ask (class comment). */
    public static Session sender(Schedule schedule, int blockSize, byte[] message, boolean firstBlockUnasked) {
        checkShape(schedule, blockSize, message.length);
        return new Session(schedule, 0, blockSize, message, true, firstBlockUnasked);
    }

    /** A receiver's session (rank 1..n−1) for a message of {@code size} bytes, announced beforehand. Every block is asked for. */
    public static Session receiver(Schedule schedule, int rank, int blockSize, int size) {
        return receiver(schedule, rank, blockSize, size, false);
    }

    /** A receiver's session; {@code firstBlockUnasked}: its first block comes without an ask (class comment). */
    public static Session receiver(Schedule schedule, int rank, int blockSize, int size, boolean firstBlockUnasked) {
        if (rank < 1 || rank >= schedule.members()) throw new IllegalArgumentException("receiver rank must be in [1, " + schedule.members() + "), was " + rank);
        checkShape(schedule, blockSize, size);
        return new Session(schedule, rank, blockSize, new byte[size], false, firstBlockUnasked);
    }

    private static void checkShape(Schedule schedule, int blockSize, int size) {
        int blocks = blocksFor(size, blockSize);
        if (blocks != schedule.blocks()) {
            throw new IllegalArgumentException("a message of " + size + " bytes in blocks of " + blockSize + " has " + blocks + " blocks, the schedule " + schedule.blocks());
        }
    }

    /**
     * What to do first: a receiver asks for its first block (unless it comes unasked); the sender, holding the whole
     * message, sends the first blocks that need no ask and completes at once.
     */
    public List<Action> start() {
        List<Action> actions = new ArrayList<>();
        if (rank != 0 && nextIncoming < incoming.size() && !firstBlockUnasked) actions.add(readyForNext());
        sendWhatCan(actions);
        finishIfComplete(actions);
        return actions;
    }

    /** Member {@code from} is ready for the block this member sends it in step {@code step}. */
    public List<Action> onReady(int from, int step) {
        List<Action> actions = new ArrayList<>();
        int i = indexOf(stepOf[1], step);
        if (i < 0 || outgoing.get(i).to() != from) {
            actions.add(new Action.Refused("member " + from + " is ready for step " + step + ", but rank " + rank + " sends it nothing then"));
            return actions;
        }
        if (i < nextOutgoing) {
            // Asked again for a block already sent: the receiver's ask or the block was lost on the way
            // (a link that may drop messages), and the receiver repeats its ask. The block is held (it was
            // sent), so it goes again; a copy that arrives twice is refused by the receiver as out of step.
            Schedule.Transfer x = outgoing.get(i);
            actions.add(sendBlock(x, step));
            return actions;
        }
        readyFromReceivers.set(i);
        sendWhatCan(actions);
        return actions;
    }

    /**
     * The ask this receiver is waiting on, to repeat when nothing arrived for a while (a lost ask or
     * block); empty once every block it was to receive is here.
     */
    public java.util.Optional<Action.Ready> waitingFor() {
        if (rank == 0 || nextIncoming >= incoming.size()) return java.util.Optional.empty();
        return java.util.Optional.of((Action.Ready) readyForNext());
    }

    /** How many blocks this member received so far (its progress, for the caller's retransmission). */
    public int received() {
        return nextIncoming;
    }

    /** The message's buffer as it is now: complete once {@link #complete()}, partly zeros before (broken twins of the tests only). */
    public byte[] buffer() {
        return message;
    }

    /** Block {@code block} arrived from member {@code from} as step {@code step}'s transfer: all of {@code bytes}. */
    public List<Action> onBlock(int from, int step, int block, byte[] bytes) {
        return onBlock(from, step, block, bytes, 0, bytes.length);
    }

    /**
     * Block {@code block} arrived from member {@code from} as step {@code step}'s transfer: {@code length} bytes of
     * {@code data} from {@code offset} (a slice that does not fit {@code data} is refused).
     */
    public List<Action> onBlock(int from, int step, int block, byte[] data, int offset, int length) {
        List<Action> actions = new ArrayList<>();
        if (nextIncoming >= incoming.size()) {
            actions.add(new Action.Refused("rank " + rank + " expects no more blocks, got block " + block + " of step " + step + " from " + from));
            return actions;
        }
        Schedule.Transfer expected = incoming.get(nextIncoming);
        int expectedStep = stepOf[0][nextIncoming];
        if (step != expectedStep || from != expected.from() || block != expected.block()) {
            actions.add(new Action.Refused("rank " + rank + " is ready for block " + expected.block() + " of step " + expectedStep + " from " + expected.from()
                    + ", got block " + block + " of step " + step + " from " + from));
            return actions;
        }
        int expectedLength = blockLength(block);
        if (length != expectedLength) {
            actions.add(new Action.Refused("block " + block + " must hold " + expectedLength + " bytes, got " + length));
            return actions;
        }
        if (offset < 0 || (long) offset + length > data.length) {
            actions.add(new Action.Refused("block " + block + ": " + length + " bytes from " + offset + " do not fit an array of " + data.length));
            return actions;
        }
        System.arraycopy(data, offset, message, block * blockSize, length);
        held.set(block);
        nextIncoming++;
        if (nextIncoming < incoming.size()) actions.add(readyForNext());
        sendWhatCan(actions);
        finishIfComplete(actions);
        return actions;
    }

    /** True once every block is held. */
    public boolean complete() {
        return held.cardinality() == schedule.blocks();
    }

    /** True once this member has sent every block the schedule gives it to send. */
    public boolean sentAll() {
        return nextOutgoing == outgoing.size();
    }

    private Action readyForNext() {
        return new Action.Ready(incoming.get(nextIncoming).from(), stepOf[0][nextIncoming]);
    }

    /** Sends, in step order, every transfer whose block is held and whose receiver is ready. */
    private void sendWhatCan(List<Action> actions) {
        while (nextOutgoing < outgoing.size()) {
            Schedule.Transfer x = outgoing.get(nextOutgoing);
            if (!held.get(x.block()) || !readyFromReceivers.get(nextOutgoing)) return;
            actions.add(sendBlock(x, stepOf[1][nextOutgoing]));
            nextOutgoing++;
        }
    }

    private Action.SendBlock sendBlock(Schedule.Transfer x, int step) {
        return new Action.SendBlock(x.to(), step, x.block(), message, x.block() * blockSize, blockLength(x.block()));
    }

    private void finishIfComplete(List<Action> actions) {
        if (!completed && complete()) {
            completed = true;
            actions.add(new Action.Completed(message));
        }
    }

    /** Every block but the last holds {@code blockSize} bytes; the last holds the rest (see {@link #blocksFor}). */
    private int blockLength(int block) {
        return block == schedule.blocks() - 1 ? message.length - block * blockSize : blockSize;
    }

    private static int indexOf(int[] steps, int step) {
        int i = java.util.Arrays.binarySearch(steps, step);
        return i >= 0 ? i : -1;
    }
}
