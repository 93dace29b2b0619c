package io.tandem.protocols.raft;

import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.tandem.codec.BinarySerializer;
import io.tandem.storage.LogEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * Hand-written encodings of the messages every replicated write sends (Raft §5.3 AppendEntries and
 * its answer, and the heartbeats that carry the commit index), in place of Kryo's reflective record
 * serializer. Other Raft messages (elections, snapshots) stay with Kryo: they are rare.
 *
 * <pre>
 * AppendEntries          term prevLogIndex prevLogTerm leaderCommit requestId:signed count entry*
 *   entry                indexDelta term payload:bytes     index = prevLogIndex + 1 + i + indexDelta (0 when consecutive)
 * AppendEntriesResponse  term success:u8 matchIndex prevLogIndex conflictTerm conflictIndex requestId:signed
 * Heartbeat              term commitIndex seq requestId:signed
 * HeartbeatResponse      term seq requestId:signed
 * </pre>
 *
 * Integers are non-negative var-longs unless marked signed (zig-zag). An entry's payload is the log's
 * opaque bytes: a follower appends the very array decoded here, nothing is re-encoded on the way to
 * its log.
 */
final class RaftWire {
    private RaftWire() {}

    /** Smallest encoded entry: index delta, term, and an empty payload's length, one byte each. */
    private static final int MIN_ENTRY_BYTES = 3;

    static final class AppendEntriesSerializer extends BinarySerializer<RaftMessage.AppendEntries> {
        AppendEntriesSerializer() {
            super("AppendEntries");
        }

        @Override
        protected void writeBody(Output out, RaftMessage.AppendEntries m) {
            writePositive(out, m.term());
            writePositive(out, m.prevLogIndex());
            writePositive(out, m.prevLogTerm());
            writePositive(out, m.leaderCommit());
            writeSigned(out, m.requestId());
            List<LogEntry> entries = m.entries();
            int n = entries.size();
            writeCount(out, n);
            long expected = m.prevLogIndex() + 1;
            for (int i = 0; i < n; i++) {
                LogEntry e = entries.get(i);
                // The leader always sends consecutive entries after prevLogIndex; a delta keeps the format
                // honest (and round-trips) should a caller ever send otherwise.
                writeSigned(out, e.index() - expected);
                writePositive(out, e.term());
                writeByteString(out, e.payload());
                expected = e.index() + 1;
            }
        }

        @Override
        protected RaftMessage.AppendEntries readBody(Input in) {
            long term = readPositive(in, "term");
            long prevLogIndex = readPositive(in, "prevLogIndex");
            long prevLogTerm = readPositive(in, "prevLogTerm");
            long leaderCommit = readPositive(in, "leaderCommit");
            long requestId = readSigned(in, "requestId");
            int n = readCount(in, "entries", MIN_ENTRY_BYTES);
            List<LogEntry> entries = n == 0 ? List.of() : new ArrayList<>(n);
            long expected = prevLogIndex + 1;
            for (int i = 0; i < n; i++) {
                long index = expected + readSigned(in, "entry index");
                long entryTerm = readPositive(in, "entry term");
                if (index < 1) throw reject("entry " + i + " has index " + index + " (log indexes start at 1)");
                if (entryTerm > term) throw reject("entry " + index + " has term " + entryTerm + " above the message's term " + term);
                entries.add(new LogEntry(index, entryTerm, readByteString(in, "entry payload")));
                expected = index + 1;
            }
            return new RaftMessage.AppendEntries(term, prevLogIndex, prevLogTerm, entries, leaderCommit, requestId);
        }
    }

    static final class AppendEntriesResponseSerializer extends BinarySerializer<RaftMessage.AppendEntriesResponse> {
        AppendEntriesResponseSerializer() {
            super("AppendEntriesResponse");
        }

        @Override
        protected void writeBody(Output out, RaftMessage.AppendEntriesResponse m) {
            writePositive(out, m.term());
            out.writeByte(m.success() ? 1 : 0);
            writePositive(out, m.matchIndex());
            writePositive(out, m.prevLogIndex());
            writePositive(out, m.conflictTerm());
            writePositive(out, m.conflictIndex());
            writeSigned(out, m.requestId());
        }

        @Override
        protected RaftMessage.AppendEntriesResponse readBody(Input in) {
            return new RaftMessage.AppendEntriesResponse(readPositive(in, "term"), readBoolean(in, "success"), readPositive(in, "matchIndex"),
                    readPositive(in, "prevLogIndex"), readPositive(in, "conflictTerm"), readPositive(in, "conflictIndex"), readSigned(in, "requestId"));
        }
    }

    static final class HeartbeatSerializer extends BinarySerializer<RaftMessage.Heartbeat> {
        HeartbeatSerializer() {
            super("Heartbeat");
        }

        @Override
        protected void writeBody(Output out, RaftMessage.Heartbeat m) {
            writePositive(out, m.term());
            writePositive(out, m.commitIndex());
            writePositive(out, m.seq());
            writeSigned(out, m.requestId());
        }

        @Override
        protected RaftMessage.Heartbeat readBody(Input in) {
            return new RaftMessage.Heartbeat(readPositive(in, "term"), readPositive(in, "commitIndex"), readPositive(in, "seq"), readSigned(in, "requestId"));
        }
    }

    static final class HeartbeatResponseSerializer extends BinarySerializer<RaftMessage.HeartbeatResponse> {
        HeartbeatResponseSerializer() {
            super("HeartbeatResponse");
        }

        @Override
        protected void writeBody(Output out, RaftMessage.HeartbeatResponse m) {
            writePositive(out, m.term());
            writePositive(out, m.seq());
            writeSigned(out, m.requestId());
        }

        @Override
        protected RaftMessage.HeartbeatResponse readBody(Input in) {
            return new RaftMessage.HeartbeatResponse(readPositive(in, "term"), readPositive(in, "seq"), readSigned(in, "requestId"));
        }
    }
}
