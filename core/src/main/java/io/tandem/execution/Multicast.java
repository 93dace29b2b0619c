package io.tandem.execution;

import java.nio.ByteBuffer;

/**
 * The atomic-multicast layer of opt-psmr.md §6.3 Option A: one ordering engine's log is the total
 * order, and each entry carries its destination tag (which workers deliver it, and whether it was
 * sent optimistically or conservatively). Every worker reads the same log through its own cursor and
 * skips entries not addressed to it, so every worker of every replica with the same subscription
 * delivers the same stream (I1), multi-group messages are simply tagged entries, and idle groups
 * cost nothing. Per-group logs with a deterministic merge (Option B) are not built.
 *
 * <p>Wire form of a tagged command: {@code magic u32 "TMC1", mode u8 (0 optimistic, 1 conservative),
 * dest u64, retryOf u64 (0, or the log index of the failed attempt this conservative copy re-sends),
 * payload}. An entry without the magic is a plain command: the replica tags it itself with the state
 * machine's routing (a pure function of the command, the same everywhere), so existing clients work
 * unchanged. A tag that does not fit the replica's routing (another thread count, a client bug) is
 * overridden by the conservative route, never trusted: a wrong tag would break isolation.
 */
public final class Multicast {
    static final int MAGIC = 0x544D4331; // "TMC1"
    static final int HEADER = 4 + 1 + 8 + 8;

    /** A decoded destination tag. */
    public record Tag(boolean optimistic, long destinations, long retryOf) {
        public Tag {
            if (destinations == 0) throw new IllegalArgumentException("no destination");
            if (retryOf < 0) throw new IllegalArgumentException("retryOf must be >= 0");
            if (optimistic && retryOf != 0) throw new IllegalArgumentException("a re-sent copy is always conservative (I6)");
        }
    }

    /** A tagged command: its tag and the state machine's command. */
    public record Tagged(Tag tag, byte[] payload) {}

    private Multicast() {}

    public static byte[] encode(Tag tag, byte[] payload) {
        return ByteBuffer.allocate(HEADER + payload.length).putInt(MAGIC).put((byte) (tag.optimistic() ? 0 : 1))
                .putLong(tag.destinations()).putLong(tag.retryOf()).put(payload).array();
    }

    /** The tagged form of {@code bytes}, or null if it is a plain (untagged) command or a malformed tag. */
    public static Tagged decode(byte[] bytes) {
        if (bytes == null || bytes.length < HEADER) return null;
        ByteBuffer in = ByteBuffer.wrap(bytes);
        if (in.getInt() != MAGIC) return null;
        byte mode = in.get();
        long dest = in.getLong();
        long retryOf = in.getLong();
        if ((mode != 0 && mode != 1) || dest == 0 || retryOf < 0 || (mode == 0 && retryOf != 0)) return null;
        byte[] payload = new byte[bytes.length - HEADER];
        in.get(payload);
        return new Tagged(new Tag(mode == 0, dest, retryOf), payload);
    }

    /** A client's tag for {@code command}: OC-G when {@code optimistic} and the command can fail, else CC-G. */
    public static byte[] tag(ParallelStateMachine machine, byte[] command, int threads, boolean optimistic) {
        ParallelStateMachine.Route route = machine.route(command, threads);
        boolean opt = optimistic && !route.certain();
        return encode(new Tag(opt, opt ? route.optimistic() : route.conservative(), 0), command);
    }
}
