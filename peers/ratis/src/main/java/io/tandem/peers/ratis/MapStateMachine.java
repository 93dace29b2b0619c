package io.tandem.peers.ratis;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * The benchmark's replicated map as a Ratis state machine: each committed log entry is one put
 * ({@link PutCodec}), applied in log order. A read-only query returns the value of a key (empty if absent).
 *
 * <p>No snapshots: the benchmark's runs are short and Ratis does not trigger snapshots unless
 * {@code raft.server.snapshot.auto.trigger.enabled} is set, so the log simply grows, as it does for the
 * other systems under test.
 */
final class MapStateMachine extends BaseStateMachine {
    private final Map<ByteString, ByteString> map = new ConcurrentHashMap<>();

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        PutCodec.Put put = PutCodec.decode(entry.getStateMachineLogEntry().getLogData());
        map.put(put.key(), put.value());
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        return CompletableFuture.completedFuture(Message.EMPTY);
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        ByteString value = map.get(request.getContent());
        return CompletableFuture.completedFuture(Message.valueOf(value == null ? ByteString.EMPTY : value));
    }

    /** The applied value of {@code key}, or {@code null}; for tests that look into a replica. */
    byte[] applied(byte[] key) {
        ByteString value = map.get(ByteString.copyFrom(key));
        return value == null ? null : value.toByteArray();
    }

    int size() {
        return map.size();
    }
}
