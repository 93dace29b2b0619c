package io.tandem.protocols.vsync.rdmc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.protocols.vsync.rdmc.Schedule.Algorithm;
import io.tandem.protocols.vsync.rdmc.Session.Action;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Sessions of every member moving one message, with every message between them delivered in a
 * random order (a seeded shuffle of everything in flight, so links are not even FIFO): every member
 * ends with the exact bytes, nothing is refused, and no member ever has more than one receive buffer
 * asked for.
 */
class SessionTest {
    private record InFlight(int from, int to, Action action) {}

    /** Runs one multicast to completion; answers what each member completed with. */
    private static byte[][] multicast(Algorithm algorithm, int n, int blockSize, byte[] message, long seed) {
        return multicast(algorithm, n, blockSize, message, seed, false, new int[1]);
    }

    /**
     * {@code firstBlockUnasked}: receivers' first blocks go without an ask (each receiver starts with that one block
     * asked for, implicitly); {@code asks} counts the asks sent.
     */
    private static byte[][] multicast(Algorithm algorithm, int n, int blockSize, byte[] message, long seed, boolean firstBlockUnasked, int[] asks) {
        Schedule schedule = Schedule.of(algorithm, n, Session.blocksFor(message.length, blockSize));
        Session[] sessions = new Session[n];
        sessions[0] = Session.sender(schedule, blockSize, message, firstBlockUnasked);
        for (int r = 1; r < n; r++) sessions[r] = Session.receiver(schedule, r, blockSize, message.length, firstBlockUnasked);
        byte[][] completed = new byte[n][];
        int[] outstandingReady = new int[n];
        if (firstBlockUnasked) for (int r = 1; r < n; r++) outstandingReady[r] = 1; // its first block, asked for by the rule
        int[] readies = new int[1];
        List<InFlight> inFlight = new ArrayList<>();
        Random random = new Random(seed);
        for (int r = 0; r < n; r++) carryOut(r, sessions[r].start(), inFlight, completed, outstandingReady);
        for (InFlight m : inFlight) if (m.action() instanceof Action.Ready) readies[0]++;
        int deliveries = 0;
        while (!inFlight.isEmpty()) {
            InFlight m = inFlight.remove(random.nextInt(inFlight.size()));
            List<Action> actions = switch (m.action()) {
                case Action.Ready ready -> sessions[m.to()].onReady(m.from(), ready.step());
                case Action.SendBlock block -> {
                    outstandingReady[m.to()]--;
                    yield sessions[m.to()].onBlock(m.from(), block.step(), block.block(), block.bytes());
                }
                default -> throw new AssertionError("not a message: " + m.action());
            };
            carryOut(m.to(), actions, inFlight, completed, outstandingReady);
            for (Action a : actions) if (a instanceof Action.Ready) readies[0]++;
            assertThat(++deliveries).as("deliveries of %s", schedule).isLessThan(10 * (schedule.steps() + 1) * n);
        }
        for (int r = 0; r < n; r++) {
            assertThat(sessions[r].complete()).as("rank %d of %s", r, schedule).isTrue();
            assertThat(sessions[r].sentAll()).as("rank %d of %s sent all it had to", r, schedule).isTrue();
        }
        asks[0] = readies[0];
        return completed;
    }

    private static void carryOut(int self, List<Action> actions, List<InFlight> inFlight, byte[][] completed, int[] outstandingReady) {
        for (Action a : actions) {
            switch (a) {
                case Action.Ready ready -> {
                    assertThat(++outstandingReady[self]).as("rank %d asked for a second block before the first came", self).isEqualTo(1);
                    inFlight.add(new InFlight(self, ready.to(), a));
                }
                case Action.SendBlock block -> inFlight.add(new InFlight(self, block.to(), a));
                case Action.Completed done -> {
                    assertThat(completed[self]).as("rank %d completes once", self).isNull();
                    completed[self] = done.message();
                }
                case Action.Refused refused -> throw new AssertionError("rank " + self + " refused: " + refused.reason());
            }
        }
    }

    @Test
    void everyMemberGetsTheExactMessageWhateverTheDeliveryOrder() {
        int blockSize = 16;
        Random bytes = new Random(7);
        for (Algorithm algorithm : Algorithm.values()) {
            for (int n : new int[] {1, 2, 3, 5, 8, 9}) {
                for (int size : new int[] {0, 1, blockSize - 1, blockSize, 7 * blockSize + 3}) {
                    byte[] message = new byte[size];
                    bytes.nextBytes(message);
                    for (long seed = 0; seed < 20; seed++) {
                        byte[][] got = multicast(algorithm, n, blockSize, message, seed);
                        for (int r = 0; r < n; r++) assertThat(got[r]).as("%s n=%d size=%d seed=%d rank %d", algorithm, n, size, seed, r).isEqualTo(message);
                    }
                }
            }
        }
    }

    /**
     * Session 15: receivers' first blocks without an ask. The same runs, in every algorithm and delivery order: the exact
     * bytes everywhere, still one block in flight per receiver, and exactly one ask fewer per receiver (n − 1 fewer
     * per message; none at all for a one-block message).
     */
    @Test
    void theFirstBlockUnaskedSavesOneAskPerReceiverAndKeepsOneBlockInFlight() {
        int blockSize = 16;
        Random bytes = new Random(11);
        for (Algorithm algorithm : Algorithm.values()) {
            for (int n : new int[] {1, 2, 3, 5, 8, 9}) {
                for (int size : new int[] {0, 1, blockSize, 7 * blockSize + 3}) {
                    byte[] message = new byte[size];
                    bytes.nextBytes(message);
                    for (long seed = 0; seed < 20; seed++) {
                        int[] asked = new int[1];
                        int[] unasked = new int[1];
                        multicast(algorithm, n, blockSize, message, seed, false, asked);
                        byte[][] got = multicast(algorithm, n, blockSize, message, seed, true, unasked);
                        for (int r = 0; r < n; r++) assertThat(got[r]).as("%s n=%d size=%d seed=%d rank %d", algorithm, n, size, seed, r).isEqualTo(message);
                        assertThat(unasked[0]).as("%s n=%d size=%d asks", algorithm, n, size).isEqualTo(asked[0] - (n - 1));
                        if (size <= blockSize) assertThat(unasked[0]).as("one block, no ask").isZero();
                    }
                }
            }
        }
    }

    @Test
    void theSenderSendsFirstBlocksAtOnceAndStillWaitsForLaterAsks() {
        Schedule chain = Schedule.of(Algorithm.CHAIN, 2, 2);
        Session sender = Session.sender(chain, 2, new byte[] {9, 8, 7}, true);
        List<Action> first = sender.start();
        assertThat(first).hasSize(2);
        assertThat(first.get(0)).isInstanceOfSatisfying(Action.SendBlock.class, b -> assertThat(b.bytes()).containsExactly(9, 8));
        assertThat(first.get(1)).isInstanceOf(Action.Completed.class);
        assertThat(sender.sentAll()).as("block 1 waits for its ask").isFalse();
        assertThat(sender.onReady(1, 0)).as("a repeated ask for the first block (it was lost) sends it again").singleElement().isInstanceOf(Action.SendBlock.class);
        assertThat(sender.onReady(1, 1)).singleElement().isInstanceOfSatisfying(Action.SendBlock.class, b -> assertThat(b.bytes()).containsExactly(7));
        Session receiver = Session.receiver(chain, 1, 2, 3, true);
        assertThat(receiver.start()).as("no ask for the first block").isEmpty();
        assertThat(receiver.waitingFor()).as("what a repeat would ask for").contains(new Action.Ready(0, 0));
        assertThat(receiver.onBlock(0, 0, 0, new byte[] {9, 8})).containsExactly(new Action.Ready(0, 1));
    }

    @Test
    void aBlockNobodyAskedForIsRefusedAndChangesNothing() {
        Schedule chain = Schedule.of(Algorithm.CHAIN, 3, 2);
        Session second = Session.receiver(chain, 2, 4, 8);
        assertThat(second.start()).containsExactly(new Action.Ready(1, 1)); // block 0 comes from rank 1 in step 1
        // A sender that ignores flow control, or a forged block: the wrong step, source, block or length.
        assertThat(second.onBlock(0, 0, 0, new byte[4])).singleElement().isInstanceOfSatisfying(Action.Refused.class,
                r -> assertThat(r.reason()).isEqualTo("rank 2 is ready for block 0 of step 1 from 1, got block 0 of step 0 from 0"));
        assertThat(second.onBlock(1, 1, 0, new byte[3])).singleElement().isInstanceOfSatisfying(Action.Refused.class,
                r -> assertThat(r.reason()).isEqualTo("block 0 must hold 4 bytes, got 3"));
        assertThat(second.complete()).isFalse();
        // The right block is taken, and the next one asked for.
        assertThat(second.onBlock(1, 1, 0, new byte[] {1, 2, 3, 4})).containsExactly(new Action.Ready(1, 2));
        assertThat(second.onReady(0, 5)).singleElement().isInstanceOf(Action.Refused.class); // rank 2 sends nothing in a chain of 3
    }

    @Test
    void theSenderWaitsForItsReceiverToBeReady() {
        Schedule chain = Schedule.of(Algorithm.CHAIN, 2, 2);
        Session sender = Session.sender(chain, 2, new byte[] {9, 8, 7});
        assertThat(sender.start()).as("the sender holds the message from the start").singleElement().isInstanceOf(Action.Completed.class);
        assertThat(sender.onReady(1, 1)).as("ready for step 1 only: block 0 of step 0 still waits").isEmpty();
        List<Action> both = sender.onReady(1, 0);
        assertThat(both).hasSize(2);
        assertThat(both.get(0)).isInstanceOfSatisfying(Action.SendBlock.class, b -> assertThat(b.bytes()).containsExactly(9, 8));
        assertThat(both.get(1)).isInstanceOfSatisfying(Action.SendBlock.class, b -> assertThat(b.bytes()).containsExactly(7));
        assertThat(sender.sentAll()).isTrue();
    }

    @Test
    void shapesThatDoNotMatchTheScheduleAreRefused() {
        Schedule three = Schedule.of(Algorithm.BINOMIAL_PIPELINE, 4, 3);
        assertThatThrownBy(() -> Session.sender(three, 4, new byte[20])).hasMessage("a message of 20 bytes in blocks of 4 has 5 blocks, the schedule 3");
        assertThatThrownBy(() -> Session.receiver(three, 0, 4, 12)).hasMessage("receiver rank must be in [1, 4), was 0");
        assertThatThrownBy(() -> Session.blocksFor(10, 0)).hasMessage("blockSize must be >= 1, was 0");
        assertThat(Session.blocksFor(0, 8)).isEqualTo(1);
        assertThat(Session.blocksFor(17, 8)).isEqualTo(3);
    }

    /** A last block of at most blockSize / 16 bytes rides with the block before it (session 18): 1 MiB + a prefix is one block. */
    @Test
    void aShortTailRidesWithTheBlockBeforeIt() {
        int mib = 1 << 20;
        assertThat(Session.blocksFor(mib + 40, mib)).as("1 MiB and a channel prefix").isEqualTo(1);
        assertThat(Session.blocksFor(mib + mib / Session.TAIL_FRACTION, mib)).isEqualTo(1);
        assertThat(Session.blocksFor(mib + mib / Session.TAIL_FRACTION + 1, mib)).isEqualTo(2);
        assertThat(Session.blocksFor(16 * mib + 40, mib)).isEqualTo(16);
        assertThat(Session.blocksFor(mib - 1, mib)).isEqualTo(1);
        assertThat(Session.blocksFor(33, 16)).as("a tail of one byte in blocks of 16").isEqualTo(2);
        assertThat(Session.blocksFor(34, 16)).isEqualTo(3);
        for (int size : new int[] {17, 33, 49, 16 * 7 + 1}) {
            byte[] message = new byte[size];
            new Random(size).nextBytes(message);
            for (int n = 2; n <= 6; n++) {
                for (boolean unasked : new boolean[] {false, true}) {
                    byte[][] got = multicast(Algorithm.BINOMIAL_PIPELINE, n, 16, message, 31L * size + n, unasked, new int[1]);
                    for (int r = 1; r < n; r++) assertThat(got[r]).as("size %d, n %d, rank %d", size, n, r).isEqualTo(message);
                }
            }
        }
    }
}
