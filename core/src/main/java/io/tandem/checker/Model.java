package io.tandem.checker;

import java.util.Locale;

/**
 * The sequential specification a history is checked against. Both models are compare-and-set registers
 * with Knossos' operations: {@code :read} (completion value = the value read), {@code :write v} and
 * {@code :cas [old new]} (which must fail with {@code :fail} when the register does not hold
 * {@code old}).
 */
public sealed interface Model {
    /** The register's value before the first operation ({@code null} for nil). */
    Object initialValue();

    /** The name the CLI uses: {@code cas-register} or {@code kv}. */
    String name();

    /** One register; op values are the register values themselves. */
    record CasRegister(Object initialValue) implements Model {
        @Override
        public String name() {
            return "cas-register";
        }
    }

    /**
     * Independent registers, one per key, as Jepsen's {@code independent} workloads produce: every op
     * value is a {@code [key value]} tuple (for example {@code :f :cas, :value [3 [4 1]]}), a printed
     * {@code #jepsen.independent.Tuple{:key k, :value v}} is accepted too. Keys are checked separately
     * (linearizability is compositional), which is what makes long multi-key histories cheap.
     */
    record KeyedCasRegisters(Object initialValue) implements Model {
        @Override
        public String name() {
            return "kv";
        }
    }

    /** A single cas register starting at nil. */
    static Model casRegister() {
        return new CasRegister(null);
    }

    /** Independent cas registers per key, each starting at nil. */
    static Model kv() {
        return new KeyedCasRegisters(null);
    }

    /**
     * The model named {@code cas-register} (alias {@code register}) or {@code kv} (alias
     * {@code independent}).
     *
     * @throws IllegalArgumentException for any other name
     */
    static Model named(String name, Object initialValue) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "cas-register", "register" -> new CasRegister(initialValue);
            case "kv", "independent" -> new KeyedCasRegisters(initialValue);
            default -> throw new IllegalArgumentException("unknown model '" + name + "' (expected cas-register or kv)");
        };
    }
}
