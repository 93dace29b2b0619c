package io.tandem.protocols.multipaxos;

import io.tandem.engine.NodeId;
import io.tandem.protocols.failslow.QuorumRule;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Read and write quorums over an ordered set of acceptors (spec §2.2, Flexible Paxos). Phase 1 and
 * the leaderless read's watermark query wait for a <em>read</em> quorum; a value is chosen once a
 * <em>write</em> quorum voted for it in one ballot. The only property Paxos needs is that every read
 * quorum intersects every write quorum (spec G-1); read quorums need not intersect each other, nor
 * write quorums. Each implementation checks it when it is built.
 *
 * <p>Sets of acceptors are bit masks over {@link #members()} (bit {@code i} is member {@code i}), so
 * a slot's votes cost one {@code long}; at most 64 acceptors.
 */
public sealed interface QuorumSystem {
    int MAX_MEMBERS = 64;

    List<NodeId> members();

    /** True if {@code acceptors} (a bit mask over {@link #members()}) contains a read quorum. */
    boolean isReadQuorum(long acceptors);

    /** True if {@code acceptors} contains a write quorum. */
    boolean isWriteQuorum(long acceptors);

    /**
     * How many acceptors may crash with both phases still able to complete: some read quorum and
     * some write quorum survive any failure of this many acceptors.
     */
    int faultTolerance();

    /**
     * The {@code k}-th write quorum of a fixed cycle, for a thrifty proxy leader that sends Phase 2a
     * to exactly one write quorum (spec §2.1, §2.2): a grid's column {@code k mod w}; for counting
     * quorums, {@code writeSize} consecutive members from member {@code k mod n}.
     */
    List<NodeId> writeQuorum(int k);

    /**
     * The acceptors a leaderless read asks first for their highest voted slot, {@code k}-th of a fixed cycle (spec
     * §2.4.1 step 1: "every acceptor of one read quorum"): a grid's row {@code k mod r}, whose answers alone fix the
     * read's slot, so the other rows are not asked unless it is slow. Counting quorums ask every member: with a few
     * acceptors the extra query is one message, and the read never waits on one slow acceptor.
     */
    List<NodeId> readQuery(int k);

    /** The bit of {@code acceptor} in masks, or 0 if it is not a member. */
    default long bit(NodeId acceptor) {
        int i = members().indexOf(acceptor);
        return i < 0 ? 0 : 1L << i;
    }

    /** The mask of {@code acceptors}; non-members are left out. */
    default long maskOf(Collection<NodeId> acceptors) {
        long mask = 0;
        for (NodeId a : acceptors) mask |= bit(a);
        return mask;
    }

    /** Read quorums as a rule for the shared fail-slow toolkit's quorum waits. */
    default QuorumRule readRule() {
        return acceptors -> isReadQuorum(maskOf(acceptors));
    }

    /** Write quorums as a rule for the shared fail-slow toolkit's quorum waits and detector. */
    default QuorumRule writeRule() {
        return acceptors -> isWriteQuorum(maskOf(acceptors));
    }

    /** The mask with every member. */
    default long all() {
        int n = members().size();
        return n == 64 ? -1L : (1L << n) - 1;
    }

    /** The members in {@code mask}, in member order. */
    default List<NodeId> membersOf(long mask) {
        List<NodeId> out = new ArrayList<>();
        for (int i = 0; i < members().size(); i++) {
            if ((mask & (1L << i)) != 0) out.add(members().get(i));
        }
        return out;
    }

    /** Majorities: any more than half of the acceptors is both a read and a write quorum (classic Paxos). */
    static QuorumSystem majority(List<NodeId> acceptors) {
        int majority = acceptors.size() / 2 + 1;
        return new Threshold(acceptors, majority, majority);
    }

    /** Flexible Paxos with counting quorums: any {@code readSize} acceptors read, any {@code writeSize} write; needs readSize + writeSize > n. */
    static QuorumSystem threshold(List<NodeId> acceptors, int readSize, int writeSize) {
        return new Threshold(acceptors, readSize, writeSize);
    }

    /**
     * An r x w grid (spec §2.2): each row is a read quorum, any set with at least one acceptor of every
     * row (a column, or any transversal, spec G-4) is a write quorum.
     */
    static QuorumSystem grid(List<List<NodeId>> rows) {
        return new Grid(rows);
    }

    /** Counting quorums: {@code readSize} of n to read, {@code writeSize} of n to write, readSize + writeSize > n. */
    record Threshold(List<NodeId> members, int readSize, int writeSize) implements QuorumSystem {
        public Threshold {
            members = distinct(members);
            int n = members.size();
            if (readSize < 1 || readSize > n) throw new IllegalArgumentException("readSize must be in [1, " + n + "], was " + readSize);
            if (writeSize < 1 || writeSize > n) throw new IllegalArgumentException("writeSize must be in [1, " + n + "], was " + writeSize);
            if (readSize + writeSize <= n) {
                throw new IllegalArgumentException("read quorums of " + readSize + " and write quorums of " + writeSize + " out of " + n
                        + " acceptors need not intersect: readSize + writeSize must exceed " + n);
            }
        }

        @Override
        public boolean isReadQuorum(long acceptors) {
            return Long.bitCount(acceptors & all()) >= readSize;
        }

        @Override
        public boolean isWriteQuorum(long acceptors) {
            return Long.bitCount(acceptors & all()) >= writeSize;
        }

        @Override
        public int faultTolerance() {
            return members.size() - Math.max(readSize, writeSize);
        }

        @Override
        public List<NodeId> writeQuorum(int k) {
            int n = members.size();
            int from = Math.floorMod(k, n);
            List<NodeId> out = new ArrayList<>(writeSize);
            for (int i = 0; i < writeSize; i++) out.add(members.get((from + i) % n));
            return out;
        }

        @Override
        public List<NodeId> readQuery(int k) {
            return members;
        }

        @Override
        public String toString() {
            return readSize == writeSize && readSize == members.size() / 2 + 1 ? "majority" + members : "threshold(read " + readSize + ", write " + writeSize + ")" + members;
        }
    }

    /** Rows are read quorums; a write quorum holds at least one acceptor of every row. */
    record Grid(List<List<NodeId>> rows) implements QuorumSystem {
        public Grid {
            if (rows.isEmpty()) throw new IllegalArgumentException("a grid needs at least one row");
            int width = rows.getFirst().size();
            List<List<NodeId>> copy = new ArrayList<>();
            for (List<NodeId> row : rows) {
                if (row.size() != width || width == 0) throw new IllegalArgumentException("every row of a grid needs the same, non-zero number of acceptors: " + rows);
                copy.add(List.copyOf(row));
            }
            rows = List.copyOf(copy);
            distinct(rows.stream().flatMap(List::stream).toList());
        }

        @Override
        public List<NodeId> members() {
            return rows.stream().flatMap(List::stream).toList();
        }

        private long rowMask(int row) {
            int width = rows.getFirst().size();
            return ((width == 64 ? -1L : (1L << width) - 1)) << (row * width);
        }

        @Override
        public boolean isReadQuorum(long acceptors) {
            for (int r = 0; r < rows.size(); r++) {
                long row = rowMask(r);
                if ((acceptors & row) == row) return true;
            }
            return false;
        }

        @Override
        public boolean isWriteQuorum(long acceptors) {
            for (int r = 0; r < rows.size(); r++) {
                if ((acceptors & rowMask(r)) == 0) return false;
            }
            return true;
        }

        /** Column {@code k mod w}: one acceptor of every row. */
        @Override
        public List<NodeId> writeQuorum(int k) {
            int column = Math.floorMod(k, rows.getFirst().size());
            return rows.stream().map(row -> row.get(column)).toList();
        }

        /** Row {@code k mod r}: a read quorum. */
        @Override
        public List<NodeId> readQuery(int k) {
            return rows.get(Math.floorMod(k, rows.size()));
        }

        /** min(r, w) - 1 (spec G-3): a whole row and an alive transversal both survive. */
        @Override
        public int faultTolerance() {
            return Math.min(rows.size(), rows.getFirst().size()) - 1;
        }

        @Override
        public String toString() {
            return "grid" + rows;
        }
    }

    private static List<NodeId> distinct(List<NodeId> members) {
        if (members.isEmpty()) throw new IllegalArgumentException("a quorum system needs at least one acceptor");
        if (members.size() > MAX_MEMBERS) throw new IllegalArgumentException("at most " + MAX_MEMBERS + " acceptors, was " + members.size());
        Set<NodeId> seen = new HashSet<>();
        for (NodeId m : members) {
            if (!seen.add(m)) throw new IllegalArgumentException("acceptor " + m + " appears twice in " + members);
        }
        return List.copyOf(members);
    }
}
