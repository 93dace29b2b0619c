package io.tandem.execution;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A small {@link ParallelStateMachine} for the executor's tests: {@code CELLS} cells, each a list
 * of command ids; cell {@code c} belongs to worker {@code c * K / CELLS} (range partitioning).
 *
 * <ul>
 *   <li>{@code append(mask, id)} appends {@code id} to every cell of {@code mask}: a static
 *       dependency on those cells' workers, both routes the same (never checked). Masks spanning
 *       several workers exercise the lock-step barrier with overlapping destination sets.</li>
 *   <li>{@code grow(c, id)} appends to cell {@code c}, and when that cell's length is 4 mod 5 also to
 *       the next cell (a "split" into a sibling: a dynamic dependency). OC-G: {@code c}'s worker;
 *       CC-G: every worker; the check passes unless the cell is "full" (the same test the execution
 *       makes, from state only the owning worker changes in parallel mode).</li>
 * </ul>
 * Concurrent applies assert that they touch only cells of the calling worker (an ownership race
 * detector, opt-psmr.md C5). Variants break the check on purpose (tests of broken variants).
 */
class CellMachine implements ParallelStateMachine {
    static final int CELLS = 8;
    static final byte APPEND = 1;
    static final byte GROW = 2;

    /** Broken variants of the safety check, in test code only. */
    enum Check {
        CORRECT,
        /** Reads the neighbour cell, which another worker changes concurrently: nondeterministic verdicts (pitfall 13). */
        READS_FOREIGN_STATE,
        /** Always passes: splits happen in parallel mode. */
        ALWAYS_PASS
    }

    private final List<List<Long>> cells = new ArrayList<>();
    private final Check check;
    volatile String raceDetected;

    private final int threads;

    CellMachine(int threads) {
        this(Check.CORRECT, threads);
    }

    CellMachine(Check check, int threads) {
        this.check = check;
        this.threads = threads;
        for (int i = 0; i < CELLS; i++) cells.add(new ArrayList<>());
    }

    static byte[] append(long mask, long id) {
        return ByteBuffer.allocate(17).put(APPEND).putLong(mask).putLong(id).array();
    }

    static byte[] grow(int cell, long id) {
        return ByteBuffer.allocate(17).put(GROW).putLong(cell).putLong(id).array();
    }

    static int workerOf(int cell, int threads) {
        return cell * threads / CELLS;
    }

    @Override
    public Route route(byte[] command, int threads) {
        ByteBuffer in = ByteBuffer.wrap(command);
        byte op = in.get();
        long arg = in.getLong();
        if (op == APPEND) {
            long dest = 0;
            for (int c = 0; c < CELLS; c++) if ((arg & (1L << c)) != 0) dest |= 1L << workerOf(c, threads);
            return new Route(dest, dest);
        }
        return Route.everywhere(threads, workerOf((int) arg, threads));
    }

    @Override
    public boolean safe(byte[] command, int worker, int threads) {
        ByteBuffer in = ByteBuffer.wrap(command);
        in.get();
        int cell = (int) in.getLong();
        return switch (check) {
            case CORRECT -> cells.get(cell).size() % 5 != 4 && workerOf(cell, threads) == worker;
            case READS_FOREIGN_STATE -> cells.get((cell + 1) % CELLS).size() % 2 == 0 && cells.get(cell).size() % 5 != 4;
            case ALWAYS_PASS -> true;
        };
    }

    @Override
    public byte[] apply(long index, byte[] command) {
        return run(-1, 0, command);
    }

    @Override
    public byte[] applyConcurrent(int worker, long index, byte[] command) {
        return run(worker, threads, command);
    }

    private byte[] run(int worker, int threads, byte[] command) {
        ByteBuffer in = ByteBuffer.wrap(command);
        byte op = in.get();
        long arg = in.getLong();
        long id = in.getLong();
        long touched = 0;
        if (op == APPEND) {
            for (int c = 0; c < CELLS; c++) if ((arg & (1L << c)) != 0) {
                cells.get(c).add(id);
                touched |= 1L << c;
            }
        } else {
            int c = (int) arg;
            List<Long> cell = cells.get(c);
            boolean full = cell.size() % 5 == 4;
            cell.add(id);
            touched |= 1L << c;
            if (full) {
                int next = (c + 1) % CELLS;
                cells.get(next).add(id);
                touched |= 1L << next;
            }
        }
        if (worker >= 0 && op == GROW) { // an append touches exactly its destinations' cells, all paused or its own
            for (int c = 0; c < CELLS; c++) {
                if ((touched & (1L << c)) != 0 && workerOf(c, threads) != worker && raceDetected == null) {
                    raceDetected = "worker " + worker + " changed cell " + c + " of worker " + workerOf(c, threads) + " in parallel mode (command " + id + ")";
                }
            }
        }
        long sum = 0;
        for (int c = 0; c < CELLS; c++) if ((touched & (1L << c)) != 0) sum = sum * 31 + cells.get(c).size();
        return ByteBuffer.allocate(8).putLong(sum).array();
    }

    @Override
    public byte[] query(byte[] query) {
        return ByteBuffer.allocate(4).putInt(cells.get(query[0]).size()).array();
    }

    @Override
    public void snapshot(OutputStream out) throws IOException {
        DataOutputStream d = new DataOutputStream(out);
        for (List<Long> cell : cells) {
            d.writeInt(cell.size());
            for (long v : cell) d.writeLong(v);
        }
        d.flush();
    }

    @Override
    public void restore(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        for (List<Long> cell : cells) {
            cell.clear();
            int n = d.readInt();
            for (int i = 0; i < n; i++) cell.add(d.readLong());
        }
    }

    String digest() {
        StringBuilder b = new StringBuilder();
        for (List<Long> cell : cells) b.append(cell.size()).append(':').append(Arrays.hashCode(cell.stream().mapToLong(Long::longValue).toArray())).append(' ');
        return b.toString();
    }

    List<List<Long>> cells() {
        return cells;
    }
}
