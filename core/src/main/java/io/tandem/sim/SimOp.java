package io.tandem.sim;

import java.util.List;
import java.util.Locale;

/**
 * One entry of a simulated client history, in the Jepsen op model (verification.md §2): an
 * invocation or a completion of a read, write or compare-and-set on one register key, at a virtual
 * time. Values follow Jepsen's independent-register workload: {@code [key value]} for reads and
 * writes, {@code [key [expected new]]} for cas; a read of an absent register returns nil.
 *
 * @param value the register value (reads: null until completed, or nil), the written value, or the
 *              pair {@code [expected, new]} as a {@code List<Long>} for cas
 * @param error why an op failed or is indeterminate (":timeout"), or null
 */
public record SimOp(int index, long timeNanos, Type type, long process, F f, long key, Object value, String error) {
    public enum Type { INVOKE, OK, FAIL, INFO }

    public enum F { READ, WRITE, CAS }

    public String toEdn() {
        String v = switch (value) {
            case null -> "nil";
            case List<?> pair -> "[" + pair.get(0) + " " + pair.get(1) + "]";
            default -> value.toString();
        };
        return "{:index " + index + ", :time " + timeNanos + ", :type :" + type.name().toLowerCase(Locale.ROOT) + ", :process " + process
                + ", :f :" + f.name().toLowerCase(Locale.ROOT) + ", :value [" + key + " " + v + "]" + (error == null ? "" : ", :error " + error) + "}";
    }
}
