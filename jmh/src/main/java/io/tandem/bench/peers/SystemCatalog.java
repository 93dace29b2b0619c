package io.tandem.bench.peers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The systems the peer benchmark knows: each system name, the {@code peers/<module>} that packages
 * it into {@code peers/<module>/target/peer-<module>.jar}, and how many replicas it runs. The
 * harness never links against a system; it only launches these jars.
 */
final class SystemCatalog {
    /** One system under test. */
    record SystemSpec(String name, String module, int replicas) {
        Path jar(Path repoRoot) {
            return repoRoot.resolve("peers").resolve(module).resolve("target").resolve("peer-" + module + ".jar");
        }

        /** Tandem's own systems run the KV server, whose admin request can delay its transport. */
        boolean isTandem() {
            return module.equals("tandem");
        }
    }

    /** The outcome of looking a system up: runnable with its jar, or skipped and why. */
    sealed interface Availability {
        SystemSpec spec();

        record Available(SystemSpec spec, Path jar) implements Availability {}

        record Skipped(SystemSpec spec, String reason) implements Availability {}
    }

    static final String TANDEM_RAFT = "tandem-raft";
    /** tandem-raft with mutual TLS between replicas and TLS for the client; not in the default set (asked for by name). */
    static final String TANDEM_RAFT_TLS = "tandem-raft-tls";
    static final String TANDEM_MULTIPAXOS = "tandem-multipaxos";
    static final String TANDEM_UNREPLICATED = "tandem-unreplicated";
    static final String AERON = "aeron-cluster";
    /** The replicated peers the Tandem engines are compared with ("the best peer"). */
    static final List<String> RAFT_PEERS = List.of("ratis", "jgroups-raft", "sofajraft");
    /** The Tandem engines whose ratios the summary reports. */
    static final List<String> TANDEM_ENGINES = List.of(TANDEM_RAFT, TANDEM_MULTIPAXOS);

    private static final Map<String, SystemSpec> ALL = new LinkedHashMap<>();

    static {
        for (SystemSpec s : List.of(new SystemSpec(TANDEM_RAFT, "tandem", 3), new SystemSpec(TANDEM_MULTIPAXOS, "tandem", 3),
                new SystemSpec(TANDEM_UNREPLICATED, "tandem", 1), new SystemSpec("ratis", "ratis", 3),
                new SystemSpec("jgroups-raft", "jgroups-raft", 3), new SystemSpec("sofajraft", "sofajraft", 3),
                new SystemSpec(AERON, "aeron", 3))) {
            ALL.put(s.name(), s);
        }
    }

    static final List<String> DEFAULT_SYSTEMS = List.copyOf(ALL.keySet());

    static {
        ALL.put(TANDEM_RAFT_TLS, new SystemSpec(TANDEM_RAFT_TLS, "tandem", 3));
    }

    private SystemCatalog() {}

    static List<String> known() {
        return List.copyOf(ALL.keySet());
    }

    /** The system called {@code name}; an unknown name fails with the list of known ones. */
    static SystemSpec spec(String name) {
        SystemSpec s = ALL.get(name);
        if (s == null) throw new IllegalArgumentException("unknown system '" + name + "'; known: " + String.join(", ", ALL.keySet()));
        return s;
    }

    /** The modules (under peers/) the given systems are packaged in, each once, in order. */
    static List<String> modules(List<String> systems) {
        return systems.stream().map(n -> spec(n).module()).distinct().toList();
    }

    /** Looks every system's jar up below {@code repoRoot}; a missing jar makes that system skipped. */
    static List<Availability> resolve(List<String> systems, Path repoRoot) {
        List<Availability> out = new ArrayList<>();
        for (String name : systems) {
            SystemSpec s = spec(name);
            Path jar = s.jar(repoRoot);
            out.add(Files.isRegularFile(jar) ? new Availability.Available(s, jar)
                    : new Availability.Skipped(s, "no jar at " + repoRoot.relativize(jar) + " (module peers/" + s.module() + " not built or not on this branch)"));
        }
        return out;
    }
}
