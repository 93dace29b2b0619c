package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import io.tandem.protocols.vsync.VsyncMessage.HistoryEntry;
import io.tandem.protocols.vsync.layout.Layout;
import io.tandem.storage.DurableLog;
import io.tandem.storage.LogEntry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A member's durable shards (derecho.md §4.6, §5.7, §5.9): per shard the history in its log, how far
 * the log is on disk, and whether the member holds the shard's whole history in its current view.
 * The engine does no I/O: records go to {@link DurableLog} (the runtime or the simulator writes and
 * syncs them) and durability is read from {@link DurableLog#durableIndex()}.
 *
 * <p>One log holds every shard's records in the order they were written. Per shard that is version
 * order: a member that holds a shard appends each delivered message, and a member new to a shard
 * writes nothing of it until the history it copies has arrived, then writes {@link DurableRecord.Reset},
 * the history, {@link DurableRecord.Complete} and what it delivered meanwhile. So the durable prefix
 * of the log is, for each shard, a prefix of the shard's one history.
 */
final class DurableShards {
    /** One shard's history at this member, and the member's standing in it. */
    static final class ShardLog {
        final ShardId id;
        final List<HistoryEntry> entries = new ArrayList<>();
        /** Log index and version of entries not yet known to be durable, oldest first. */
        private final ArrayDeque<long[]> notDurable = new ArrayDeque<>();
        /** The highest version whose record is durable (0: none since the last reset). */
        long maxDurable;
        /** Whether I serve the shard in my current (or newest logged) view. */
        boolean serving;
        /** Whether my log holds the shard's whole history before {@link #stintStart} (and what I delivered since). */
        boolean complete;
        /** The view since which I serve the shard without a break. */
        long stintStart;
        /** The log index of the {@link DurableRecord.Complete} that made me complete (0: none needed): counts once durable. */
        long completeIndex;
        /** Messages delivered while not complete: written and handed to the receiver after the history. */
        final List<HistoryEntry> pending = new ArrayList<>();
        /** The persisted frontier last reported to the receiver. */
        long signaled;

        ShardLog(ShardId id) {
            this.id = id;
        }

        void add(long index, HistoryEntry e) {
            entries.add(e);
            if (index <= 0) maxDurable = e.version(); // read back from disk: durable
            else notDurable.add(new long[] {index, e.version()});
        }

        /** The records up to log index {@code durableIndex} are on disk. */
        void notDurableUpTo(long durableIndex) {
            while (!notDurable.isEmpty() && notDurable.peek()[0] <= durableIndex) maxDurable = notDurable.poll()[1];
        }

        void reset() {
            entries.clear();
            notDurable.clear();
            maxDurable = 0;
        }

        /** The highest version in the log, durable or not (0 if none). */
        long lastVersion() {
            return entries.isEmpty() ? 0 : entries.getLast().version();
        }

        /**
         * What I publish in the shard's {@code persisted} column: 0 while I do not hold the whole
         * history durably, else one more than the highest durable version.
         */
        long persistedColumn(long durableIndex) {
            if (!complete || completeIndex > durableIndex) return 0;
            return maxDurable + 1;
        }

        /** Every message with a version below view {@code vid}. */
        List<HistoryEntry> before(long vid) {
            List<HistoryEntry> out = new ArrayList<>();
            for (HistoryEntry e : entries) if (e.version() >>> 32 < vid) out.add(e);
            return out;
        }
    }

    /**
     * The shard's persisted frontier from its members' {@code persisted} columns (derecho.md §4.6, D5):
     * the highest version every member has on disk, or −1 if some member holds nothing yet (a column
     * of 0: a member still copying the history, or a row not in the view).
     */
    static long frontier(long... columns) {
        long min = Long.MAX_VALUE;
        for (long c : columns) min = Math.min(min, c);
        return columns.length == 0 ? -1 : min - 1;
    }

    private final DurableLog log;
    private final NodeId self;
    private final Map<ShardId, ShardLog> shards = new LinkedHashMap<>();
    /** The newest view in the log (the initial view until one is written). */
    private DurableRecord.View lastView;
    /** Shards whose restart source I am, by the restart view that named me. */
    private final Map<ShardId, Long> sourceOf = new LinkedHashMap<>();

    DurableShards(DurableLog log, NodeId self, DurableRecord.View initial) {
        this.log = log;
        this.self = self;
        this.lastView = initial;
    }

    ShardLog of(ShardId id) {
        return shards.computeIfAbsent(id, ShardLog::new);
    }

    Iterable<ShardLog> all() {
        return shards.values();
    }

    DurableRecord.View lastView() {
        return lastView;
    }

    /** The restart view that named me the source of {@code shard}, or 0. */
    long sourceVid(ShardId shard) {
        return sourceOf.getOrDefault(shard, 0L);
    }

    Map<ShardId, Long> sources() {
        return sourceOf;
    }

    /** Appends {@code record}; returns its log index. */
    long append(DurableRecord record) {
        long index = log.lastIndex() + 1;
        log.append(new LogEntry(index, 0, DurableRecord.encode(record)));
        return index;
    }

    /** Moves every shard's durable mark up to what the disk reports. */
    void refresh(long durableIndex) {
        for (ShardLog s : shards.values()) s.notDurableUpTo(durableIndex);
    }

    /**
     * Rebuilds the shards from the log after a restart: every record from the first, through the
     * same transitions the live member made ({@link #enterView}).
     *
     * @param durableOf the durable shards of a logged view's layout
     */
    void recover(Function<DurableRecord.View, Layout> layoutOf, Function<Layout, List<ShardId>> durableOf) {
        enterView(lastView, layoutOf.apply(lastView), durableOf);
        List<DurableRecord> records = new ArrayList<>();
        for (long i = Math.max(1, log.firstIndex()); i <= log.lastIndex(); i++) records.add(DurableRecord.decode(log.entry(i).payload()));
        // A view logged again for the same id (a leader's grown proposal, then the trim it published) replaces the earlier record.
        java.util.Set<Integer> replaced = new java.util.HashSet<>();
        int lastViewAt = -1;
        for (int i = 0; i < records.size(); i++) {
            if (!(records.get(i) instanceof DurableRecord.View v)) continue;
            if (lastViewAt >= 0 && ((DurableRecord.View) records.get(lastViewAt)).vid() == v.vid()) replaced.add(lastViewAt);
            lastViewAt = i;
        }
        for (int i = 0; i < records.size(); i++) {
            switch (records.get(i)) {
                case DurableRecord.View v -> {
                    if (!replaced.contains(i)) enterView(v, layoutOf.apply(v), durableOf);
                }
                case DurableRecord.Entry e -> of(e.shard()).add(0, new HistoryEntry(e.version(), e.sender(), e.payload()));
                case DurableRecord.Reset r -> of(r.shard()).reset();
                case DurableRecord.Complete c -> {
                    ShardLog s = of(c.shard());
                    if (s.serving && s.stintStart == c.vid()) s.complete = true;
                }
            }
        }
    }

    /**
     * My standing in each durable shard of view {@code v} (derecho.md §5.7): a member that continues
     * from the view before in a shard it held keeps holding it; the restart source of a shard holds it
     * from its own log; any other member is new to the shard and holds it only once it has copied the
     * history. Called once per view (the initial view first).
     */
    void enterView(DurableRecord.View v, Layout layout, Function<Layout, List<ShardId>> durableOf) {
        boolean follows = v.continuing() && (v.vid() == lastView.vid() + 1 || v == lastView);
        List<ShardId> mine = new ArrayList<>();
        for (ShardId s : durableOf.apply(layout)) if (layout.shard(s.subgroup(), s.index()).members().contains(self)) mine.add(s);
        for (ShardLog s : shards.values()) {
            if (!mine.contains(s.id)) {
                s.serving = false;
                s.complete = false;
                s.pending.clear();
            }
        }
        for (ShardId id : mine) {
            ShardLog s = of(id);
            boolean source = self.equals(v.sources().get(id));
            if (source) {
                s.complete = true;
                s.completeIndex = 0;
                s.stintStart = v.vid();
            } else if (!(follows && s.serving)) {
                // New to the shard (joined, moved in, or restarted): the history must be copied first.
                s.complete = v.vid() == 1;
                s.completeIndex = 0;
                s.stintStart = v.vid();
                s.pending.clear();
            }
            s.serving = true;
        }
        v.sources().forEach((id, node) -> {
            if (node.equals(self)) sourceOf.put(id, v.vid());
        });
        lastView = v;
    }
}
