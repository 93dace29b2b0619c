package io.tandem.bench.peers;

import java.util.List;

/** One workload configuration of the throughput matrix: the value size of every put and whether replicas fsync before acknowledging. */
record Config(int valueSize, boolean fsync) {
    Config {
        if (valueSize < 1) throw new IllegalArgumentException("value size must be >= 1, was " + valueSize);
    }

    /** The full matrix: 64 B and 1 KiB values, each with fsync on and off. */
    static final List<Config> ALL = List.of(new Config(64, false), new Config(64, true), new Config(1024, false), new Config(1024, true));

    /** A short id for file names and tables, e.g. {@code 64B-fsync} or {@code 1024B-nofsync}. */
    String id() {
        return valueSize + "B-" + (fsync ? "fsync" : "nofsync");
    }

    /** The inverse of {@link #id()}. */
    static Config parse(String id) {
        String s = id.strip();
        int b = s.indexOf("B-");
        if (b <= 0) throw new IllegalArgumentException("not a configuration id (e.g. 64B-fsync, 1024B-nofsync): '" + id + "'");
        int size;
        try {
            size = Integer.parseInt(s.substring(0, b));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a configuration id (e.g. 64B-fsync, 1024B-nofsync): '" + id + "'");
        }
        return switch (s.substring(b + 2)) {
            case "fsync" -> new Config(size, true);
            case "nofsync" -> new Config(size, false);
            default -> throw new IllegalArgumentException("not a configuration id (e.g. 64B-fsync, 1024B-nofsync): '" + id + "'");
        };
    }
}
