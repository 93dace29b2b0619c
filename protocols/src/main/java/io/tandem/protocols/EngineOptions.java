package io.tandem.protocols;

import java.util.Map;

/**
 * The checks every protocol's {@link io.tandem.engine.Protocol#withEngineOptions} makes, in one place: an unknown key is
 * refused with the known ones, a value must be a whole number, and a value the protocol's config refuses is refused
 * naming the option as the user wrote it (raft27: Raft's options joined MultiPaxos', with the same messages).
 */
public final class EngineOptions {
    private EngineOptions() {}

    /** Sets one option on a config: the config with it, or an {@link IllegalArgumentException} saying why it cannot be. */
    @FunctionalInterface
    public interface Setter<C> {
        C set(C config, String key, int value);
    }

    /**
     * {@code KEY=VALUE} texts (the command line's {@code --engine-option}s, the items of a server's {@code engine-options})
     * as an ordered map, keys and values stripped; a text without a key or a value, or a key given twice, is refused.
     */
    public static Map<String, String> parse(Iterable<String> texts) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (String t : texts) {
            int eq = t.indexOf('=');
            if (eq <= 0 || t.substring(eq + 1).isBlank()) throw new IllegalArgumentException("'" + t + "' is not KEY=VALUE");
            String key = t.substring(0, eq).strip();
            if (out.put(key, t.substring(eq + 1).strip()) != null) throw new IllegalArgumentException("'" + key + "' is given twice");
        }
        return out;
    }

    /** The options a protocol takes, in the order given: key, description, key, description, ... (unmodifiable). */
    public static Map<String, String> known(String... keysAndDescriptions) {
        if (keysAndDescriptions.length % 2 != 0) throw new IllegalArgumentException("keys and descriptions come in pairs");
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keysAndDescriptions.length; i += 2) m.put(keysAndDescriptions[i], keysAndDescriptions[i + 1]);
        return java.util.Collections.unmodifiableMap(m);
    }

    /**
     * {@code config} with each of {@code options} set by {@code setter}, in the map's order; {@code known} maps each
     * option the protocol takes to its description.
     *
     * @throws IllegalArgumentException naming the option, for an unknown key, a value that is not a whole number or one
     *                                  the config refuses
     */
    public static <C> C apply(String protocol, Map<String, String> known, Map<String, String> options, C config, Setter<C> setter) {
        for (var e : options.entrySet()) {
            String key = e.getKey();
            if (!known.containsKey(key)) {
                throw new IllegalArgumentException("unknown " + protocol + " engine option '" + key + "' (known: " + String.join(", ", known.keySet()) + ")");
            }
            int value;
            try {
                value = Integer.parseInt(e.getValue().strip());
            } catch (NumberFormatException ex) {
                throw new IllegalArgumentException("engine option " + key + "=" + e.getValue() + ": not a whole number", ex);
            }
            try {
                config = setter.set(config, key, value);
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("engine option " + key + "=" + e.getValue() + ": " + ex.getMessage(), ex);
            }
        }
        return config;
    }
}
