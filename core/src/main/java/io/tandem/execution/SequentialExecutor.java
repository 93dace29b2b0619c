package io.tandem.execution;

import io.tandem.engine.Committed;
import io.tandem.statemachine.CommandResult;
import io.tandem.statemachine.StateMachine;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.PriorityQueue;

/**
 * The sequential executor: one command at a time, strictly in index order, on the calling thread,
 * with exactly-once sessions ({@link SessionTable}); reads wait until the index they need is
 * applied, then run between two commands. Deterministic: the same entries give the same outcomes,
 * the same table and the same snapshot bytes on every replica.
 */
public final class SequentialExecutor implements Executor {
    /** 1: one sequence per client (before watermarks); 2: {@link SessionTable} with watermarks. */
    private static final int SNAPSHOT_FORMAT = 2;
    private static final ExecutionListener.Outcome NOOP = new ExecutionListener.Outcome.Applied(new byte[0]);

    private record WaitingRead(long requestId, long afterIndex, long arrival, byte[] query) {}

    private final StateMachine stateMachine;
    private final ExecutionListener listener;
    private final SessionTable sessions;
    /** Reads by index, then by arrival, so that equal indexes are answered in the order they came. */
    private final PriorityQueue<WaitingRead> waitingReads = new PriorityQueue<>((a, b) ->
            a.afterIndex != b.afterIndex ? Long.compare(a.afterIndex, b.afterIndex) : Long.compare(a.arrival, b.arrival));
    private long readArrivals;
    private volatile long appliedIndex;

    public SequentialExecutor(StateMachine stateMachine, ExecutionListener listener, ExecutorFactory.Limits limits) {
        this.stateMachine = stateMachine;
        this.listener = listener;
        this.sessions = new SessionTable(limits.maxSessions(), limits.maxPerSession());
    }

    @Override
    public void apply(Committed entry) {
        long index = entry.index();
        if (index <= appliedIndex) return; // re-delivered after an engine restart: already applied
        if (index != appliedIndex + 1) {
            throw new IllegalStateException("engine delivered index " + index + " after " + appliedIndex + ": a gap in the order");
        }
        if (entry.isNoop()) {
            appliedIndex = index;
            // A no-op may still answer a request (a Raft membership change completes when its entry applies).
            if (entry.origin() != null) listener.executed(entry, NOOP);
            return;
        }
        // The session's numbers, not a session object (issue 25: one per command on every replica).
        boolean hasSession = entry.hasSession();
        ExecutionListener.Outcome outcome = switch (hasSession ? sessions.decide(entry.clientId(), entry.sequence(), entry.lowWatermark()) : SessionTable.APPLY) {
            case SessionTable.Decision.Apply ignored -> {
                // Unencoded (issue 25): only a waiting client, a retry or a snapshot asks for the bytes.
                // The command as a range of the entry the engine delivered (issue 25: no copy of it per entry).
                CommandResult result = stateMachine.applyForResult(index, entry.origin(), entry.commandBuffer(), entry.commandOffset(), entry.commandLength());
                if (result == null) result = CommandResult.EMPTY;
                if (hasSession) sessions.record(entry.clientId(), entry.sequence(), entry.lowWatermark(), result);
                yield new ExecutionListener.Outcome.Applied(result);
            }
            case SessionTable.Decision.Duplicate d -> new ExecutionListener.Outcome.Duplicate(d.cachedResult());
            case SessionTable.Decision.Stale s -> new ExecutionListener.Outcome.Stale(s.floor());
        };
        appliedIndex = index;
        listener.executed(entry, outcome);
    }

    @Override
    public void read(long requestId, long afterIndex, byte[] query) {
        if (afterIndex <= appliedIndex && waitingReads.isEmpty()) answer(requestId, query);
        else waitingReads.add(new WaitingRead(requestId, afterIndex, readArrivals++, query));
    }

    @Override
    public void flush() {
        stateMachine.endBatch();
        while (!waitingReads.isEmpty() && waitingReads.peek().afterIndex <= appliedIndex) {
            WaitingRead r = waitingReads.poll();
            answer(r.requestId, r.query);
        }
    }

    private void answer(long requestId, byte[] query) {
        byte[] result;
        try {
            result = stateMachine.query(query);
        } catch (RuntimeException e) {
            listener.readAnswered(requestId, null, e);
            return;
        }
        listener.readAnswered(requestId, result == null ? new byte[0] : result, null);
    }

    @Override
    public long appliedIndex() {
        return appliedIndex;
    }

    @Override
    public byte[] executedResult(io.tandem.engine.ClientRequest.Session session) {
        return sessions.cachedResult(session);
    }

    /** Sessions remembered (tests, diagnostics). */
    public SessionTable sessions() {
        return sessions;
    }

    @Override
    public void writeSnapshot(OutputStream out) throws IOException {
        DataOutputStream data = new DataOutputStream(out);
        data.writeInt(SNAPSHOT_FORMAT);
        data.writeLong(appliedIndex);
        sessions.writeTo(data);
        data.flush();
        stateMachine.snapshot(out);
    }

    @Override
    public void restoreSnapshot(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int format = data.readInt();
        if (format != SNAPSHOT_FORMAT && format != 1) throw new IOException("unknown snapshot format " + format + " (this build reads 1 and " + SNAPSHOT_FORMAT + ")");
        long index = data.readLong();
        if (format == 1) sessions.readFormat1From(data);
        else sessions.readFrom(data);
        stateMachine.restore(in);
        appliedIndex = index;
    }
}
