package io.tandem.testing;

import io.tandem.codec.CodecIds;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.storage.LogEntry;
import io.tandem.storage.StorageEvent;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A test-only engine for exercising the runtime: the first member is a fixed sequencer that logs
 * each command, replicates it to every follower and commits once all members (itself included)
 * have it durably. No fault tolerance: it exists to drive the runtime's loop, timers, storage
 * completions, execution, reads and rejections through a real multi-node message flow.
 */
public final class SequencerProtocol implements Protocol {
    public sealed interface SeqMessage extends ProtocolMessage {}

    public record Order(long requestId, long index, NodeId origin, long originRequestId, ClientRequest.Session session, byte[] command) implements SeqMessage {}

    public record Ack(long requestId, long index) implements SeqMessage {}

    public record Commit(long requestId, long commitIndex) implements SeqMessage {}

    /** A command that, once delivered, makes every member snapshot its state machine. */
    public static final byte[] SNAPSHOT_COMMAND = "snapshot!".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    /** Sequencer heartbeat, so followers learn commits even when no new command arrives. */
    record Heartbeat() implements TimerKey {}

    @Override
    public String name() {
        return "test-sequencer";
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        return new SequencerEngine();
    }

    @Override
    public void registerMessages(MessageRegistry registry) {
        registry.register(Order.class, CodecIds.TEST_FIRST + 50);
        registry.register(Ack.class, CodecIds.TEST_FIRST + 51);
        registry.register(Commit.class, CodecIds.TEST_FIRST + 52);
    }

    static final class SequencerEngine implements Engine {
        private EngineContext ctx;
        private NodeId sequencer;
        private final Map<Long, Set<NodeId>> acks = new HashMap<>();
        private final Map<Long, Order> orders = new HashMap<>();
        private long commitIndex;
        private long deliveredIndex;

        @Override
        public void start(EngineContext ctx) {
            this.ctx = ctx;
            this.sequencer = ctx.members().getFirst();
            // Recover: the state machine resumes from the latest snapshot; log entries after it are delivered again.
            long snapshot = ctx.snapshots().latest().map(s -> s.lastIncludedIndex()).orElse(0L);
            commitIndex = deliveredIndex = snapshot;
            for (long i = Math.max(snapshot + 1, ctx.log().firstIndex()); i <= ctx.log().lastIndex(); i++) {
                orders.put(i, new Order(0, i, null, 0, ClientRequest.Session.NONE, ctx.log().entry(i).payload()));
            }
            if (isSequencer()) {
                onAck(ctx.self(), ctx.log().durableIndex());
                ctx.schedule(20_000_000L, new Heartbeat());
            }
        }

        private boolean isSequencer() {
            return ctx.self().equals(sequencer);
        }

        @Override
        public void onClientRequest(ClientRequest request) {
            if (!isSequencer()) {
                ctx.reject(request.requestId(), Rejection.Redirect.to(sequencer));
                return;
            }
            if (request.kind() == ClientRequest.Kind.READ) {
                ctx.serveRead(request.requestId(), commitIndex);
                return;
            }
            long index = ctx.log().lastIndex() + 1;
            Order order = new Order(request.requestId(), index, ctx.self(), request.requestId(), request.session(), request.payload());
            append(order);
            for (NodeId m : ctx.members()) if (!m.equals(ctx.self())) ctx.send(m, order);
        }

        private void append(Order order) {
            orders.put(order.index(), order);
            ctx.log().append(new LogEntry(order.index(), 1, order.command()));
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            switch ((SeqMessage) message) {
                case Order o -> onOrder(o);
                case Ack a -> onAck(from, a.index());
                case Commit c -> onCommit(c.commitIndex());
            }
        }

        private void onOrder(Order o) {
            if (o.index() != ctx.log().lastIndex() + 1) return; // FIFO links: never happens without faults
            append(o);
        }

        /** {@code from} holds every entry up to {@code upTo} durably (acks are cumulative). */
        private void onAck(NodeId from, long upTo) {
            for (long i = commitIndex + 1; i <= upTo; i++) acks.computeIfAbsent(i, k -> new HashSet<>()).add(from);
            long before = commitIndex;
            while (acks.getOrDefault(commitIndex + 1, Set.of()).size() == ctx.members().size()) {
                acks.remove(commitIndex + 1);
                commitIndex++;
            }
            if (commitIndex > before) {
                deliverUpTo(commitIndex);
                for (NodeId m : ctx.members()) if (!m.equals(ctx.self())) ctx.send(m, new Commit(0, commitIndex));
            }
        }

        private void onCommit(long index) {
            commitIndex = Math.max(commitIndex, index);
            deliverUpTo(Math.min(commitIndex, ctx.log().durableIndex()));
        }

        private void deliverUpTo(long index) {
            while (deliveredIndex < index) {
                Order o = orders.remove(++deliveredIndex);
                ctx.deliver(new Committed(o.index(), o.origin(), o.originRequestId(), o.session(), o.command()));
                if (Arrays.equals(o.command(), SNAPSHOT_COMMAND)) ctx.takeSnapshot(o.index());
            }
        }

        @Override
        public void onStorageEvent(StorageEvent event) {
            if (event instanceof StorageEvent.LogSynced synced) {
                if (isSequencer()) {
                    onAck(ctx.self(), synced.durableIndex());
                } else {
                    ctx.send(sequencer, new Ack(0, synced.durableIndex()));
                    deliverUpTo(Math.min(commitIndex, synced.durableIndex()));
                }
            }
        }

        @Override
        public void onTimer(TimerKey key) {
            for (NodeId m : ctx.members()) if (!m.equals(ctx.self())) ctx.send(m, new Commit(0, commitIndex));
            ctx.schedule(20_000_000L, new Heartbeat());
        }
    }

    static long index(byte[] result) {
        return ByteBuffer.wrap(result).getLong();
    }
}
