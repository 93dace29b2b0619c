package io.tandem.sim;

import io.tandem.execution.ParallelStateMachine;
import io.tandem.statemachine.CommandResult;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * The deterministic state machine of the simulated workload: independent registers over long keys
 * and values, with write, compare-and-set, add (a counter, whose total shows whether a command was
 * applied more than once) and read. Commands and results are small binary records
 * built by the static helpers; an absent register reads as nil.
 *
 * <p>It declares its conflicts, so the simulator can drive the parallel executors with it: a
 * register belongs to worker {@code floorMod(key, K)}; write, cas and read touch one register
 * (one worker both ways). {@code add} stands in for a command with a dynamic dependency: it goes
 * optimistically to its register's worker and conservatively to every worker, and its check fails
 * when the register's current value is a multiple of 3 (state only that worker changes), so runs
 * exercise checks, fails, re-sends and lock-step execution. The registers are a concurrent sorted
 * map, safe for workers that write different keys.
 */
public final class KvRegisterMachine implements ParallelStateMachine {
    static final byte WRITE = 1;
    static final byte CAS = 2;
    static final byte READ = 3;
    static final byte ADD = 4;

    private final java.util.concurrent.ConcurrentSkipListMap<Long, Long> values = new java.util.concurrent.ConcurrentSkipListMap<>();

    @Override
    public Route route(byte[] command, int threads) {
        ByteBuffer in = ByteBuffer.wrap(command);
        byte op = in.get();
        int worker = Math.floorMod(in.getLong(), threads);
        return op == ADD ? Route.everywhere(threads, worker) : Route.only(worker);
    }

    @Override
    public boolean safe(byte[] command, int worker, int threads) {
        long key = ByteBuffer.wrap(command, 1, 8).getLong();
        return values.getOrDefault(key, 0L) % 3 != 0;
    }

    @Override
    public byte[] applyConcurrent(int worker, long index, byte[] command) {
        return apply(index, command);
    }

    public static byte[] write(long key, long value) {
        return ByteBuffer.allocate(17).put(WRITE).putLong(key).putLong(value).array();
    }

    public static byte[] cas(long key, long expected, long next) {
        return ByteBuffer.allocate(25).put(CAS).putLong(key).putLong(expected).putLong(next).array();
    }

    /** Adds {@code delta} to the register (absent reads as 0); the result is the new value. */
    public static byte[] add(long key, long delta) {
        return ByteBuffer.allocate(17).put(ADD).putLong(key).putLong(delta).array();
    }

    public static byte[] read(long key) {
        return ByteBuffer.allocate(9).put(READ).putLong(key).array();
    }

    /** For a write or cas result: whether it took effect. */
    public static boolean succeeded(byte[] result) {
        return result.length == 1 && result[0] == 1;
    }

    /** For a read result: the value, or null if the register was never written. */
    public static Long readValue(byte[] result) {
        if (result.length == 1 && result[0] == 0) return null;
        if (result.length != 9 || result[0] != 1) throw new IllegalArgumentException("not a read result");
        return ByteBuffer.wrap(result, 1, 8).getLong();
    }

    @Override
    public byte[] apply(long index, byte[] command) {
        return applyForResult(index, command).encode();
    }

    private static final CommandResult DONE = () -> new byte[] {1};
    private static final CommandResult NOT_DONE = () -> new byte[] {0};

    /** The new total of an add, encoded only when asked (issue 25: the executor keeps results unencoded). */
    private record Added(long next) implements CommandResult {
        @Override
        public byte[] encode() {
            return ByteBuffer.allocate(9).put((byte) 1).putLong(next).array();
        }
    }

    /**
     * The same results as {@link #apply}, left unencoded, so that the simulator's runs put the executors'
     * deferred encoding (session table, duplicates, snapshots) under their linearizability check: a retried
     * add must still answer the total of its one application.
     */
    @Override
    public CommandResult applyForResult(long index, byte[] command) {
        ByteBuffer in = ByteBuffer.wrap(command);
        byte op = in.get();
        long key = in.getLong();
        return switch (op) {
            case WRITE -> {
                values.put(key, in.getLong());
                yield DONE;
            }
            case CAS -> {
                long expected = in.getLong();
                long next = in.getLong();
                Long current = values.get(key);
                if (current != null && current == expected) {
                    values.put(key, next);
                    yield DONE;
                }
                yield NOT_DONE;
            }
            case ADD -> {
                long next = values.getOrDefault(key, 0L) + in.getLong();
                values.put(key, next);
                yield new Added(next);
            }
            default -> throw new IllegalArgumentException("not a command: op " + op);
        };
    }

    /** The value of register {@code key} (0 if absent), read directly (invariants, tests). */
    public long valueOf(long key) {
        return values.getOrDefault(key, 0L);
    }

    @Override
    public byte[] query(byte[] query) {
        ByteBuffer in = ByteBuffer.wrap(query);
        if (in.get() != READ) throw new IllegalArgumentException("not a read");
        Long value = values.get(in.getLong());
        if (value == null) return new byte[] {0};
        return ByteBuffer.allocate(9).put((byte) 1).putLong(value).array();
    }

    @Override
    public void snapshot(OutputStream out) throws IOException {
        DataOutputStream data = new DataOutputStream(out);
        data.writeInt(values.size());
        for (Map.Entry<Long, Long> e : values.entrySet()) {
            data.writeLong(e.getKey());
            data.writeLong(e.getValue());
        }
        data.flush();
    }

    @Override
    public void restore(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        values.clear();
        int n = data.readInt();
        for (int i = 0; i < n; i++) values.put(data.readLong(), data.readLong());
    }

    /** A readable form of a command or query, for failure reports. */
    public static String describe(byte[] command) {
        if (command == null) return "no-op";
        try {
            ByteBuffer in = ByteBuffer.wrap(command);
            byte op = in.get();
            long key = in.getLong();
            return switch (op) {
                case WRITE -> "write(" + key + ", " + in.getLong() + ")";
                case CAS -> "cas(" + key + ", " + in.getLong() + " -> " + in.getLong() + ")";
                case READ -> "read(" + key + ")";
                case ADD -> "add(" + key + ", " + in.getLong() + ")";
                default -> "unknown op " + op;
            };
        } catch (RuntimeException e) {
            return command.length + " bytes";
        }
    }
}
