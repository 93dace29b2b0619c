package io.tandem.protocols;

import io.tandem.engine.Protocol;
import io.tandem.protocols.copilot.CopilotConfig;
import io.tandem.protocols.copilot.CopilotProtocol;
import io.tandem.protocols.multipaxos.MultiPaxosConfig;
import io.tandem.protocols.multipaxos.MultiPaxosProtocol;
import io.tandem.protocols.raft.RaftConfig;
import io.tandem.protocols.raft.RaftProtocol;
import io.tandem.protocols.toy.ToyProtocol;
import io.tandem.protocols.unreplicated.UnreplicatedProtocol;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The protocols Tandem ships, by name: what {@code --protocol NAME} on the command line and
 * configuration files refer to. Each protocol package adds itself here. Protocols from a
 * {@link ProtocolProvider} on the classpath (the deliberately broken engines of the tests) are found
 * too; none ships.
 */
public final class Protocols {
    private static final Map<String, Supplier<Protocol>> SHIPPED = new TreeMap<>();

    static {
        SHIPPED.put(ToyProtocol.NAME, ToyProtocol::correct);
        SHIPPED.put(RaftProtocol.NAME, RaftProtocol::new);
        SHIPPED.put(MultiPaxosProtocol.NAME, MultiPaxosProtocol::new);
        SHIPPED.put(CopilotProtocol.NAME, CopilotProtocol::new);
        // One member and a durable log, no replication: the cluster benchmark's upper bound, not fault tolerant.
        SHIPPED.put(UnreplicatedProtocol.NAME, UnreplicatedProtocol::new);
        SHIPPED.put(io.tandem.protocols.vsync.VirtualSynchronyProtocol.NAME, io.tandem.protocols.vsync.VirtualSynchronyProtocol::new);
    }

    /** Shipped and provided protocols, loaded once. */
    private static volatile Map<String, Supplier<Protocol>> all;

    private Protocols() {}

    private static Map<String, Supplier<Protocol>> all() {
        Map<String, Supplier<Protocol>> known = all;
        if (known == null) {
            Map<String, Supplier<Protocol>> loaded = new TreeMap<>(SHIPPED);
            for (ProtocolProvider provider : ServiceLoader.load(ProtocolProvider.class, Protocols.class.getClassLoader())) {
                for (Map.Entry<String, Supplier<Protocol>> e : provider.protocols().entrySet()) {
                    if (SHIPPED.containsKey(e.getKey())) {
                        throw new IllegalStateException(provider.getClass().getName() + " offers '" + e.getKey() + "', a name Tandem ships");
                    }
                    loaded.put(e.getKey(), e.getValue());
                }
            }
            all = known = Map.copyOf(loaded);
        }
        return known;
    }

    /** Every known protocol name, sorted: the shipped ones, and any a {@link ProtocolProvider} on the classpath adds. */
    public static List<String> names() {
        return all().keySet().stream().sorted().toList();
    }

    /** A fresh instance of the protocol called {@code name}. */
    public static Protocol byName(String name) {
        Supplier<Protocol> factory = all().get(name);
        if (factory == null) throw new IllegalArgumentException("unknown protocol '" + name + "'; known: " + String.join(", ", names()));
        return factory.get();
    }

    /** Fail-slow tolerant Raft (DepFast) with default settings ({@link RaftConfig#DEFAULTS}). */
    public static Protocol raft() {
        return new RaftProtocol();
    }

    public static Protocol raft(RaftConfig config) {
        return new RaftProtocol(config);
    }

    /** MultiPaxos from separable roles, classic deployment, with default settings ({@link MultiPaxosConfig#DEFAULTS}). */
    public static Protocol multiPaxos() {
        return new MultiPaxosProtocol();
    }

    public static Protocol multiPaxos(MultiPaxosConfig config) {
        return new MultiPaxosProtocol(config);
    }

    /** Copilot (1-slowdown-tolerant: two pilots order every command) with default settings ({@link CopilotConfig#DEFAULTS}). */
    public static Protocol copilot() {
        return new CopilotProtocol();
    }

    public static Protocol copilot(CopilotConfig config) {
        return new CopilotProtocol(config);
    }

    /** A single server with a durable log and no replication (the benchmark's upper bound); refuses more than one member. */
    public static Protocol unreplicated() {
        return new UnreplicatedProtocol();
    }

    /** Virtual synchrony after Derecho: SST-based ordered multicast with view changes and the ragged trim ({@link io.tandem.protocols.vsync.VsyncConfig#DEFAULTS}). */
    public static Protocol virtualSynchrony() {
        return new io.tandem.protocols.vsync.VirtualSynchronyProtocol();
    }

    public static Protocol virtualSynchrony(io.tandem.protocols.vsync.VsyncConfig config) {
        return new io.tandem.protocols.vsync.VirtualSynchronyProtocol(config);
    }

    /** The toy primary-backup engine, the simulator's reference subject. */
    public static Protocol toyPrimaryBackup() {
        return ToyProtocol.correct();
    }
}
