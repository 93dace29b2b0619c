package io.tandem.history;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An immutable Jepsen history: the ops in the order they happened (which defines real-time order),
 * plus, for a history read from text, the source line of each op so errors and reports can point at it.
 *
 * <p>Reading is liberal, like Knossos' {@code read-history}: the text may be one vector {@code [...]} or
 * list {@code (...)} of op maps, or a stream of op maps (Jepsen's {@code history.edn}: one per line);
 * comments, commas and {@code #_} discards are allowed, and a printed record such as
 * {@code #jepsen.history.Op{...}} counts as its map. Writing always produces the format of
 * verification.md §2: one op map per line, keys {@code :index :time :type :process :f :value} first.
 */
public final class History {
    private final List<Op> ops;
    private final int[] lines;

    private History(List<Op> ops, int[] lines) {
        this.ops = ops;
        this.lines = lines;
    }

    /** A history of the given ops, in order (no source lines). */
    public static History of(List<Op> ops) {
        return new History(List.copyOf(ops), null);
    }

    /** A builder that records invocations and completions as they happen (for simulators and tests). */
    public static HistoryBuilder builder() {
        return new HistoryBuilder();
    }

    /** Reads a history file (UTF-8). */
    public static History read(Path file) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(in);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** Reads a history from text. */
    public static History parse(String text) {
        return read(new StringReader(text));
    }

    /**
     * Reads a history from a character stream (not closed).
     *
     * @throws EdnParseException if the text is not EDN
     * @throws HistoryException if a form is not an op map, or an op map lacks {@code :type}/{@code :process}
     */
    public static History read(Reader in) {
        EdnReader reader = new EdnReader(in);
        List<Op> ops = new ArrayList<>();
        IntList lines = new IntList();
        int c = reader.peekAfterBlank();
        if (c == '[' || c == '(') {
            char close = c == '[' ? ']' : ')';
            int openLine = reader.line();
            reader.skipChar();
            while (true) {
                c = reader.peekAfterBlank();
                if (c == close) {
                    reader.skipChar();
                    break;
                }
                if (c < 0) {
                    throw reader.error("end of input inside the history opened at line " + openLine);
                }
                int line = reader.line();
                addOp(ops, lines, reader.readFormHere(), line);
            }
            if (reader.hasNext()) {
                throw new HistoryException(reader.line(), "unexpected form after the closing "
                        + close + " of the history; a history is one vector or list of op maps, or a stream of op maps");
            }
        } else {
            while (reader.hasNext()) {
                int line = reader.line();
                addOp(ops, lines, reader.next(), line);
            }
        }
        return new History(List.copyOf(ops), lines.toArray());
    }

    private static void addOp(List<Op> ops, IntList lines, Object form, int line) {
        Object map = form instanceof Tagged t && t.value() instanceof Map<?, ?> m ? m : form;
        if (!(map instanceof Map<?, ?> m)) {
            throw new HistoryException(line, "expected an op map, found " + abbreviate(EdnWriter.toEdn(form)));
        }
        try {
            ops.add(Op.fromMap(m));
        } catch (HistoryException e) {
            throw new HistoryException(line, e.getMessage());
        }
        lines.add(line);
    }

    /** The ops in history order. */
    public List<Op> ops() {
        return ops;
    }

    public int size() {
        return ops.size();
    }

    public Op get(int position) {
        return ops.get(position);
    }

    /** The 1-based source line of the op at {@code position}, or 0 if the history was not read from text. */
    public int line(int position) {
        return lines == null ? 0 : lines[position];
    }

    /** Where the op at {@code position} is, for messages: {@code "line 12"}, or {@code "op #12"} (0-based). */
    public String where(int position) {
        return lines == null ? "op #" + position : "line " + lines[position];
    }

    /**
     * Pairs every client invocation with its completion, in invocation order. Ops of non-client
     * processes (the nemesis) are skipped. An invocation still pending at the end has no completion.
     *
     * @throws HistoryException if a process invokes while its previous invocation is pending, or
     *     completes without a pending invocation (the message names both lines)
     */
    public List<Operation> operations() {
        List<Operation> result = new ArrayList<>();
        Map<Object, Integer> pendingSlot = new HashMap<>();
        Map<Object, Integer> pendingAt = new HashMap<>();
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            if (!op.isClient()) {
                continue;
            }
            Object process = op.process();
            if (op.type() == Op.Type.INVOKE) {
                Integer earlier = pendingAt.get(process);
                if (earlier != null) {
                    throw new HistoryException(line(i), "process " + process + " invokes " + op.toEdn()
                            + " while its invocation at " + where(earlier) + " has not completed");
                }
                pendingAt.put(process, i);
                pendingSlot.put(process, result.size());
                result.add(new Operation(i, op, -1, null));
            } else {
                Integer slot = pendingSlot.remove(process);
                if (slot == null) {
                    throw new HistoryException(line(i), "process " + process + " completes " + op.toEdn()
                            + " without a pending invocation");
                }
                int invokedAt = pendingAt.remove(process);
                result.set(slot, new Operation(invokedAt, ops.get(invokedAt), i, op));
            }
        }
        return result;
    }

    /** Writes the history, one op map per line. */
    public void write(Writer out) throws IOException {
        StringBuilder line = new StringBuilder(160);
        for (Op op : ops) {
            line.setLength(0);
            EdnWriter.write(op.toMap(), line);
            line.append('\n');
            out.append(line);
        }
        out.flush();
    }

    /** Writes the history to a file (UTF-8), one op map per line. */
    public void write(Path file) throws IOException {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(out);
        }
    }

    /** The history as text, one op map per line. */
    public String toEdn() {
        StringWriter out = new StringWriter();
        try {
            write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof History h && ops.equals(h.ops);
    }

    @Override
    public int hashCode() {
        return ops.hashCode();
    }

    @Override
    public String toString() {
        return "History[" + ops.size() + " ops]";
    }

    static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }

    /** A growable int array, to keep source lines without boxing. */
    private static final class IntList {
        private int[] items = new int[64];
        private int size;

        void add(int value) {
            if (size == items.length) {
                items = Arrays.copyOf(items, size * 2);
            }
            items[size++] = value;
        }

        int[] toArray() {
            return Arrays.copyOf(items, size);
        }
    }
}
