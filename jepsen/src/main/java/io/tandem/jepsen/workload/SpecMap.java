package io.tandem.jepsen.workload;

import io.tandem.history.EdnWriter;
import io.tandem.history.Keyword;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Typed access to a map read from a workload spec ({@code jepsen/workloads/*.edn}), with errors that
 * name the file and the key, since these files are edited by hand.
 */
final class SpecMap {
    private final String where;
    private final Map<?, ?> map;

    SpecMap(String where, Object value) {
        if (!(value instanceof Map<?, ?> m)) throw new SpecException(where + ": expected a map, got " + EdnWriter.toEdn(value));
        this.where = where;
        this.map = m;
    }

    boolean has(String key) {
        return map.containsKey(Keyword.of(key));
    }

    Object raw(String key) {
        return map.get(Keyword.of(key));
    }

    SpecMap map(String key) {
        Object v = raw(key);
        return new SpecMap(where + " " + key, v == null ? Map.of() : v);
    }

    String string(String key, String dflt) {
        Object v = raw(key);
        if (v == null) return dflt;
        if (v instanceof String s) return s;
        if (v instanceof Keyword k) return k.name();
        throw bad(key, "a string", v);
    }

    Keyword keyword(String key, Keyword dflt) {
        Object v = raw(key);
        if (v == null) return dflt;
        if (v instanceof Keyword k) return k;
        throw bad(key, "a keyword", v);
    }

    long number(String key, long dflt) {
        Object v = raw(key);
        if (v == null) return dflt;
        if (v instanceof Long l) return l;
        throw bad(key, "an integer", v);
    }

    double decimal(String key, double dflt) {
        Object v = raw(key);
        if (v == null) return dflt;
        if (v instanceof Long l) return l;
        if (v instanceof Double d) return d;
        throw bad(key, "a number", v);
    }

    boolean flag(String key, boolean dflt) {
        Object v = raw(key);
        if (v == null) return dflt;
        if (v instanceof Boolean b) return b;
        throw bad(key, "true or false", v);
    }

    /** A count that may be given relative to the node count, as Jepsen's {@code --concurrency 2n}. */
    int perNodes(String key, String dflt, int nodes) {
        Object v = raw(key);
        if (v == null) v = dflt;
        try {
            return parsePerNodes(v, nodes);
        } catch (IllegalArgumentException e) {
            throw bad(key, "an integer or a string like \"2n\"", v);
        }
    }

    static int parsePerNodes(Object v, int nodes) {
        if (v instanceof Long l && l > 0) return Math.toIntExact(l);
        if (v instanceof String s) {
            String t = s.strip();
            if (t.endsWith("n")) {
                String factor = t.substring(0, t.length() - 1);
                int f = factor.isEmpty() ? 1 : Integer.parseInt(factor);
                if (f > 0) return f * nodes;
            } else {
                int n = Integer.parseInt(t);
                if (n > 0) return n;
            }
        }
        throw new IllegalArgumentException("not a count: " + EdnWriter.toEdn(v));
    }

    List<Keyword> keywords(String key, List<Keyword> dflt) {
        Object v = raw(key);
        if (v == null) return dflt;
        if (!(v instanceof Collection<?> c)) throw bad(key, "a vector of keywords", v);
        List<Keyword> out = new ArrayList<>();
        for (Object o : c) {
            if (!(o instanceof Keyword k)) throw bad(key, "a vector of keywords", v);
            out.add(k);
        }
        if (out.isEmpty()) throw bad(key, "a non-empty vector of keywords", v);
        return out;
    }

    List<SpecMap> maps(String key) {
        Object v = raw(key);
        if (v == null) return List.of();
        if (!(v instanceof Collection<?> c)) throw bad(key, "a vector of maps", v);
        List<SpecMap> out = new ArrayList<>();
        for (Object o : c) out.add(new SpecMap(where + " " + key, o));
        return out;
    }

    String where() {
        return where;
    }

    private SpecException bad(String key, String expected, Object got) {
        return new SpecException(where + ": :" + key + " must be " + expected + ", got " + EdnWriter.toEdn(got));
    }
}
