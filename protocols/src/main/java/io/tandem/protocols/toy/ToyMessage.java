package io.tandem.protocols.toy;

import io.tandem.codec.CodecIds;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.ProtocolMessage;
import io.tandem.storage.LogEntry;
import java.util.List;

/** The messages of the toy primary-backup engine. */
public sealed interface ToyMessage extends ProtocolMessage {
    /**
     * Primary to backup: the entries after {@code prevIndex} (empty for a heartbeat), the primary's
     * commit index, and a probe number the backup echoes, which confirms leadership for reads.
     */
    record Append(long view, long prevIndex, long prevTerm, List<LogEntry> entries, long commitIndex, long probe, long requestId) implements ToyMessage {
        public Append {
            entries = List.copyOf(entries);
        }
    }

    /**
     * Backup to primary. On success {@code matchIndex} is the backup's durable prefix that matches the
     * primary's log; on a mismatch {@code nextIndexHint} is where the primary should resume.
     */
    record AppendReply(long view, boolean success, long matchIndex, long nextIndexHint, long probe, long requestId) implements ToyMessage {}

    /** A node asks for the votes that make it primary of {@code view} (a view only it can lead). */
    record RequestVote(long view, long lastTerm, long lastIndex, long requestId) implements ToyMessage {}

    record Vote(long view, boolean granted, long requestId) implements ToyMessage {}

    static void register(MessageRegistry registry) {
        int id = CodecIds.TOY_FIRST;
        registry.register(LogEntry.class, id++);
        registry.register(Append.class, id++);
        registry.register(AppendReply.class, id++);
        registry.register(RequestVote.class, id++);
        registry.register(Vote.class, id++);
    }
}
