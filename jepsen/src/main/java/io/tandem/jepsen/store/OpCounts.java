package io.tandem.jepsen.store;

import io.tandem.history.EdnWriter;
import io.tandem.history.History;
import io.tandem.history.Keyword;
import io.tandem.history.Op;
import io.tandem.history.Operation;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * How many client operations ended {@code :ok}, {@code :fail} and {@code :info} per {@code :f}
 * (an invocation that never completed counts as {@code :info}), plus the nemesis ops: what the
 * runner prints at the end and writes as {@code :stats} into {@code results.edn}.
 */
public record OpCounts(Map<String, long[]> byF, long nemesisOps) {

    public static OpCounts of(History history) {
        Map<String, long[]> byF = new TreeMap<>();
        for (Operation o : history.operations()) {
            String f = o.f() instanceof Keyword k ? k.name() : EdnWriter.toEdn(o.f());
            long[] c = byF.computeIfAbsent(f, x -> new long[3]);
            switch (o.outcome()) {
                case OK -> c[0]++;
                case FAIL -> c[1]++;
                default -> c[2]++;
            }
        }
        long nemesis = 0;
        for (Op op : history.ops()) if (!op.isClient()) nemesis++;
        return new OpCounts(byF, nemesis / 2);
    }

    public long ok() {
        return byF.values().stream().mapToLong(c -> c[0]).sum();
    }

    public long fail() {
        return byF.values().stream().mapToLong(c -> c[1]).sum();
    }

    public long info() {
        return byF.values().stream().mapToLong(c -> c[2]).sum();
    }

    public long total() {
        return ok() + fail() + info();
    }

    /** {@code {:read {:ok 10 :fail 2 :info 0} ...}} */
    public Map<Object, Object> toEdn() {
        Map<Object, Object> m = new LinkedHashMap<>();
        byF.forEach((f, c) -> {
            Map<Object, Object> e = new LinkedHashMap<>();
            e.put(Keyword.of("ok"), c[0]);
            e.put(Keyword.of("fail"), c[1]);
            e.put(Keyword.of("info"), c[2]);
            m.put(Keyword.of(f), e);
        });
        return m;
    }

    /** A small table for the console. */
    public String table() {
        StringBuilder s = new StringBuilder(String.format("%-8s %8s %8s %8s%n", "f", "ok", "fail", "info"));
        byF.forEach((f, c) -> s.append(String.format("%-8s %8d %8d %8d%n", f, c[0], c[1], c[2])));
        s.append(String.format("%-8s %8d %8d %8d%n", "total", ok(), fail(), info()));
        s.append("nemesis ops: ").append(nemesisOps);
        return s.toString();
    }

    /** One line: {@code read 120/3/0, write 40/1/2} (ok/fail/info). */
    public String oneLine() {
        StringBuilder s = new StringBuilder();
        byF.forEach((f, c) -> {
            if (!s.isEmpty()) s.append(", ");
            s.append(f).append(' ').append(c[0]).append('/').append(c[1]).append('/').append(c[2]);
        });
        return s + " (ok/fail/info)";
    }
}
