package io.tandem.engine;

import java.util.regex.Pattern;

/**
 * The identity of one member of a replication group, stable across restarts ("n1", "replica-2").
 * Names are short and restricted so they can appear in file names, metric tags and log lines.
 */
public record NodeId(String value) implements Comparable<NodeId> {
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    public NodeId {
        if (value == null || !VALID.matcher(value).matches()) {
            throw new IllegalArgumentException(
                "invalid node id '" + value + "': use 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
    }

    public static NodeId of(String value) {
        return new NodeId(value);
    }

    @Override
    public int compareTo(NodeId other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
