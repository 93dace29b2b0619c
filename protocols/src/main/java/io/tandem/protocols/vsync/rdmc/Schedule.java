package io.tandem.protocols.vsync.rdmc;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Which block moves between which members at each step of a large-message multicast (RDMC,
 * derecho.md §3.3): the sender has rank 0, the receivers ranks 1..n−1, the message B blocks. A pure
 * function of (algorithm, n, B): every member computes the same table independently, so a receiver
 * always knows which block comes next and from whom, and no coordination message is needed beyond
 * the receiver's ready-for-block signal ({@link Session}).
 *
 * <p>Every algorithm keeps the telephone model: in one step a member sends at most one block and
 * receives at most one block, and it sends only blocks it received in an earlier step.
 * {@code ScheduleTest} checks these properties and the step counts for n = 2..64 and B = 1..100.
 *
 * <h2>Binomial pipeline</h2>
 * For n = 2^d the members are the vertices of a d-dimensional hypercube. At step t every vertex u
 * pairs with {@code u XOR 2^(t mod d)}; the sender hands its partner block t while t &lt; B, and every
 * other vertex hands its partner the highest-numbered block it holds that the partner lacks. Handing
 * the newest block keeps every block moving down its own binomial tree one step behind the block
 * before it, so the pipeline fills in d − 1 steps and then every vertex sends and receives one block
 * per step: B + d − 1 steps in all, the lower bound for one block per step out of the sender plus
 * ⌈log₂ n⌉ − 1 forwarding steps for the last block. (Handing the lowest missing block instead stalls
 * the pipeline; the test of the alternative rules lives beside the properties.)
 *
 * <p>For other n, d = ⌊log₂ n⌋ and the 2^d hypercube schedule runs on vertices; the n − 2^d extra
 * members are twins of vertices 1..n − 2^d (member {@code 2^d − 1 + v} is the twin of vertex v).
 * At each step one member of a pair, the <em>receiver</em>, takes the vertex's incoming block and
 * hands its twin a block the twin lacks; the other, the <em>sender</em>, makes the vertex's outgoing
 * transfer. The pair chooses the roles so that the sender already holds the outgoing block (if both
 * do, the member holding fewer blocks receives). Both constraints of the telephone model hold by
 * construction, and after the vertex schedule each twin lacks at most one block, which one final
 * exchange step delivers: B + d steps, again the lower bound (⌈log₂ n⌉ = d + 1).
 */
public final class Schedule {
    /** How the blocks travel. */
    public enum Algorithm {
        /** The sender unicasts every block to every receiver in turn: B·(n−1) steps. */
        SEQUENTIAL,
        /** A bucket brigade: member r forwards block j to r + 1 while it receives block j + 1: B + n − 2 steps. */
        CHAIN,
        /** One binomial tree per message, not pipelined: B·⌈log₂ n⌉ steps. */
        TREE,
        /** Binomial trees per block over a hypercube: B + ⌈log₂ n⌉ − 1 steps (the default). */
        BINOMIAL_PIPELINE
    }

    /** One block from one member to another in one step; ranks are positions in the member list, the sender 0. */
    public record Transfer(int from, int to, int block) {}

    private final Algorithm algorithm;
    private final int members;
    private final int blocks;
    /** {@code steps.get(t)}: the transfers of step t, each member at most once as sender and once as receiver. */
    private final List<List<Transfer>> steps;

    private Schedule(Algorithm algorithm, int members, int blocks, List<List<Transfer>> steps) {
        this.algorithm = algorithm;
        this.members = members;
        this.blocks = blocks;
        this.steps = steps;
    }

    /**
     * The schedule of {@code algorithm} for {@code members} members (sender included) and a message
     * of {@code blocks} blocks.
     *
     * @throws IllegalArgumentException if members or blocks is below 1
     */
    public static Schedule of(Algorithm algorithm, int members, int blocks) {
        if (members < 1) throw new IllegalArgumentException("members must be >= 1, was " + members);
        if (blocks < 1) throw new IllegalArgumentException("blocks must be >= 1, was " + blocks);
        List<List<Transfer>> steps = members == 1 ? List.of() : switch (algorithm) {
            case SEQUENTIAL -> sequential(members, blocks);
            case CHAIN -> chain(members, blocks);
            case TREE -> tree(members, blocks);
            case BINOMIAL_PIPELINE -> binomialPipeline(members, blocks);
        };
        return new Schedule(algorithm, members, blocks, steps);
    }

    public Algorithm algorithm() {
        return algorithm;
    }

    public int members() {
        return members;
    }

    public int blocks() {
        return blocks;
    }

    /** How many steps the multicast takes; 0 for a group of one. */
    public int steps() {
        return steps.size();
    }

    /** The transfers of step {@code t}. */
    public List<Transfer> step(int t) {
        return steps.get(t);
    }

    /** What member {@code rank} sends in step {@code t}, if anything. */
    public Optional<Transfer> outgoing(int rank, int t) {
        for (Transfer x : steps.get(t)) {
            if (x.from() == rank) return Optional.of(x);
        }
        return Optional.empty();
    }

    /** What member {@code rank} receives in step {@code t}, if anything. */
    public Optional<Transfer> incoming(int rank, int t) {
        for (Transfer x : steps.get(t)) {
            if (x.to() == rank) return Optional.of(x);
        }
        return Optional.empty();
    }

    /** Every transfer member {@code rank} takes part in as sender ({@code sending}) or receiver, in step order. */
    public List<Transfer> transfersOf(int rank, boolean sending) {
        List<Transfer> out = new ArrayList<>();
        for (List<Transfer> step : steps) {
            for (Transfer x : step) {
                if ((sending ? x.from() : x.to()) == rank) out.add(x);
            }
        }
        return out;
    }

    private static List<List<Transfer>> sequential(int n, int b) {
        List<List<Transfer>> steps = new ArrayList<>();
        for (int receiver = 1; receiver < n; receiver++) {
            for (int block = 0; block < b; block++) steps.add(List.of(new Transfer(0, receiver, block)));
        }
        return List.copyOf(steps);
    }

    private static List<List<Transfer>> chain(int n, int b) {
        List<List<Transfer>> steps = new ArrayList<>();
        for (int t = 0; t < b + n - 2; t++) {
            List<Transfer> step = new ArrayList<>();
            for (int r = 0; r < n - 1; r++) {
                int block = t - r; // member r passes on at step t what it received at step t − 1
                if (block >= 0 && block < b) step.add(new Transfer(r, r + 1, block));
            }
            steps.add(List.copyOf(step));
        }
        return List.copyOf(steps);
    }

    private static List<List<Transfer>> tree(int n, int b) {
        List<List<Transfer>> steps = new ArrayList<>();
        // Stage s: every member below 2^s already holds the message and sends it, block by block, to
        // the member 2^s above it.
        for (int span = 1; span < n; span <<= 1) {
            for (int block = 0; block < b; block++) {
                List<Transfer> step = new ArrayList<>();
                for (int r = 0; r < span && r + span < n; r++) step.add(new Transfer(r, r + span, block));
                steps.add(List.copyOf(step));
            }
        }
        return List.copyOf(steps);
    }

    private static List<List<Transfer>> binomialPipeline(int n, int b) {
        int d = 31 - Integer.numberOfLeadingZeros(n);
        int vertices = 1 << d;
        List<List<Transfer>> hypercube = hypercube(vertices, b, d);
        if (vertices == n) return hypercube;
        return withTwins(hypercube, n, vertices, b);
    }

    /** The hypercube schedule of {@code vertices = 2^d} members (see the class comment). */
    private static List<List<Transfer>> hypercube(int vertices, int b, int d) {
        List<List<Transfer>> steps = new ArrayList<>();
        if (vertices == 1) return steps;
        BitSet[] has = holdings(vertices, b);
        for (int t = 0; !complete(has, 1, b); t++) {
            int dimension = 1 << (t % d);
            List<Transfer> step = new ArrayList<>();
            for (int u = 0; u < vertices; u++) {
                int partner = u ^ dimension;
                if (partner == 0) continue; // the sender needs nothing
                int block = u == 0 ? (t < b ? t : newestMissing(has[u], has[partner])) : newestMissing(has[u], has[partner]);
                if (block >= 0) step.add(new Transfer(u, partner, block));
            }
            for (Transfer x : step) has[x.to()].set(x.block());
            steps.add(List.copyOf(step));
        }
        return steps;
    }

    /**
     * Lays the extra members over the hypercube schedule as twins of vertices 1..n − 2^d (class
     * comment), then adds the final exchange step.
     */
    private static List<List<Transfer>> withTwins(List<List<Transfer>> hypercube, int n, int vertices, int b) {
        int paired = n - vertices; // vertices 1..paired have a twin
        BitSet[] has = holdings(n, b);
        List<List<Transfer>> steps = new ArrayList<>();
        int[] sendingMember = new int[vertices];
        int[] receivingMember = new int[vertices];
        for (List<Transfer> vertexStep : hypercube) {
            int[] outgoingBlock = new int[vertices];
            java.util.Arrays.fill(outgoingBlock, -1);
            for (Transfer x : vertexStep) outgoingBlock[x.from()] = x.block();
            for (int v = 0; v < vertices; v++) {
                sendingMember[v] = v;
                receivingMember[v] = v;
                if (v == 0 || v > paired) continue;
                int twin = twinOf(v, vertices);
                int out = outgoingBlock[v];
                boolean vertexCanSend = out < 0 || has[v].get(out);
                boolean twinCanSend = out < 0 || has[twin].get(out);
                boolean vertexSends;
                if (vertexCanSend && twinCanSend) {
                    vertexSends = has[v].cardinality() >= has[twin].cardinality(); // the one holding fewer receives
                } else if (vertexCanSend || twinCanSend) {
                    vertexSends = vertexCanSend;
                } else {
                    // The hypercube schedule sends only blocks the vertex received earlier, and every
                    // block the vertex received went to one of the pair; this cannot happen.
                    throw new IllegalStateException("neither member of vertex " + v + " holds block " + out);
                }
                sendingMember[v] = vertexSends ? v : twin;
                receivingMember[v] = vertexSends ? twin : v;
            }
            List<Transfer> step = new ArrayList<>();
            for (Transfer x : vertexStep) step.add(new Transfer(sendingMember[x.from()], receivingMember[x.to()], x.block()));
            for (int v = 1; v <= paired; v++) {
                // The receiver of the pair hands the sender the newest block it lacks.
                int block = newestMissing(has[receivingMember[v]], has[sendingMember[v]]);
                if (block >= 0) step.add(new Transfer(receivingMember[v], sendingMember[v], block));
            }
            for (Transfer x : step) has[x.to()].set(x.block());
            steps.add(List.copyOf(step));
        }
        List<Transfer> last = new ArrayList<>();
        for (int v = 1; v <= paired; v++) {
            int twin = twinOf(v, vertices);
            int toTwin = newestMissing(has[v], has[twin]);
            int toVertex = newestMissing(has[twin], has[v]);
            if (toTwin >= 0) last.add(new Transfer(v, twin, toTwin));
            if (toVertex >= 0) last.add(new Transfer(twin, v, toVertex));
        }
        for (Transfer x : last) has[x.to()].set(x.block());
        if (!last.isEmpty()) steps.add(List.copyOf(last));
        if (!complete(has, 1, b)) throw new IllegalStateException("twin schedule for n=" + n + ", B=" + b + " left a member without a block");
        return steps;
    }

    /** Member {@code 2^d − 1 + v} is the twin of vertex v (derecho.md §3.3: vertex = member + 1 − 2^d). */
    static int twinOf(int vertex, int vertices) {
        return vertex + vertices - 1;
    }

    private static BitSet[] holdings(int n, int b) {
        BitSet[] has = new BitSet[n];
        for (int i = 0; i < n; i++) has[i] = new BitSet(b);
        has[0].set(0, b);
        return has;
    }

    private static boolean complete(BitSet[] has, int from, int b) {
        for (int i = from; i < has.length; i++) {
            if (has[i].cardinality() < b) return false;
        }
        return true;
    }

    /** The highest block {@code holder} has that {@code other} lacks, or −1. */
    private static int newestMissing(BitSet holder, BitSet other) {
        for (int i = holder.length() - 1; i >= 0; i = holder.previousSetBit(i - 1)) {
            if (!other.get(i)) return i;
        }
        return -1;
    }

    @Override
    public String toString() {
        return algorithm + "(n=" + members + ", B=" + blocks + ", " + steps() + " steps)";
    }

    /** The transfers as text, one step per line: {@code t: 0->1 b0, 2->3 b1}; for diagnostics. */
    public String describe() {
        StringBuilder sb = new StringBuilder(toString()).append('\n');
        for (int t = 0; t < steps.size(); t++) {
            sb.append(t).append(':');
            List<Transfer> sorted = new ArrayList<>(steps.get(t));
            Collections.sort(sorted, java.util.Comparator.comparingInt(Transfer::from));
            for (Transfer x : sorted) sb.append(' ').append(x.from()).append("->").append(x.to()).append(" b").append(x.block());
            sb.append('\n');
        }
        return sb.toString();
    }
}
