package io.tandem.protocols.toy;

import io.tandem.codec.MessageRegistry;
import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.sim.SimCluster;
import io.tandem.sim.SimInvariant;
import io.tandem.sim.SimulatedProtocol;
import io.tandem.storage.DurableLog;
import io.tandem.storage.LogEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The toy primary-backup protocol ({@code toy-pb}): the simulator's reference subject. Its twin with
 * a deliberate bug lives in the tests, which prove the simulator can tell the two apart.
 */
public class ToyProtocol implements SimulatedProtocol {
    public static final String NAME = "toy-pb";

    private final ToyConfig config;

    public ToyProtocol(ToyConfig config) {
        this.config = config;
    }

    public static ToyProtocol correct() {
        return new ToyProtocol(ToyConfig.DEFAULT);
    }

    public ToyConfig config() {
        return config;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        return newEngine(self, members);
    }

    /** The engine of one node; a variant in tests returns its own. */
    ToyPrimaryBackup newEngine(NodeId self, List<NodeId> members) {
        return new ToyPrimaryBackup(self, members, config);
    }

    @Override
    public void registerMessages(MessageRegistry registry) {
        ToyMessage.register(registry);
    }

    @Override
    public List<SimInvariant> invariants() {
        return List.of(
                SimInvariant.of("one-primary-per-view", ToyProtocol::onePrimaryPerView),
                SimInvariant.of("commit-within-log", ToyProtocol::commitWithinLog),
                SimInvariant.of("committed-entries-agree", ToyProtocol::committedEntriesAgree));
    }

    private static List<ToyPrimaryBackup> engines(SimCluster cluster) {
        List<ToyPrimaryBackup> out = new ArrayList<>();
        for (NodeId n : cluster.members()) cluster.engine(n, ToyPrimaryBackup.class).ifPresent(out::add);
        return out;
    }

    /** Election safety: no two live nodes act as primary of the same view. */
    private static Optional<String> onePrimaryPerView(SimCluster cluster) {
        TreeMap<Long, NodeId> primaries = new TreeMap<>();
        for (NodeId n : cluster.members()) {
            Optional<ToyPrimaryBackup> e = cluster.engine(n, ToyPrimaryBackup.class);
            if (e.isEmpty() || e.get().role() != ToyPrimaryBackup.Role.PRIMARY) continue;
            NodeId other = primaries.putIfAbsent(e.get().view(), n);
            if (other != null) return Optional.of(other + " and " + n + " are both primary of view " + e.get().view());
        }
        return Optional.empty();
    }

    /** A node never commits an entry it does not have. */
    private static Optional<String> commitWithinLog(SimCluster cluster) {
        for (NodeId n : cluster.members()) {
            Optional<ToyPrimaryBackup> e = cluster.engine(n, ToyPrimaryBackup.class);
            if (e.isPresent() && e.get().commitIndex() > e.get().log().lastIndex()) {
                return Optional.of(n + " has commit index " + e.get().commitIndex() + " beyond its last entry " + e.get().log().lastIndex());
            }
        }
        return Optional.empty();
    }

    /**
     * Committed prefixes agree: for every two live nodes, the entry at the lower of their commit
     * indexes is the same on both (by log matching, so is everything before it). Checked at one index
     * per pair, so it stays cheap enough to run after every event.
     */
    private static Optional<String> committedEntriesAgree(SimCluster cluster) {
        List<ToyPrimaryBackup> engines = engines(cluster);
        for (int i = 0; i < engines.size(); i++) {
            for (int j = i + 1; j < engines.size(); j++) {
                ToyPrimaryBackup a = engines.get(i);
                ToyPrimaryBackup b = engines.get(j);
                long c = Math.min(a.commitIndex(), b.commitIndex());
                if (c < 1) continue;
                Optional<LogEntry> ea = entry(a.log(), c);
                Optional<LogEntry> eb = entry(b.log(), c);
                if (ea.isEmpty() || eb.isEmpty()) continue;
                if (ea.get().term() != eb.get().term() || !Arrays.equals(ea.get().payload(), eb.get().payload())) {
                    return Optional.of("committed entry " + c + " differs: term " + ea.get().term() + " vs term " + eb.get().term());
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<LogEntry> entry(DurableLog log, long index) {
        return index >= log.firstIndex() && index <= log.lastIndex() ? Optional.of(log.entry(index)) : Optional.empty();
    }
}
