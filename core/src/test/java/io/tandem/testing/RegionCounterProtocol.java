package io.tandem.testing;

import io.tandem.codec.MessageRegistry;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Region;
import io.tandem.engine.Regions;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A test engine that uses nothing but a memory region and the poll hook: every member counts its
 * own word of region "counter" up to {@code target}, in lockstep (it may step only while no member
 * is behind it, which it learns by reading their words as it polls), pushing each step to the
 * others. It sends no message, arms no timer and asks for no write events: only polling can move
 * it. Once everyone is at the target it stops asking to be polled. The engines of a group are kept
 * in {@link #engines} for the test to read.
 */
public final class RegionCounterProtocol implements Protocol {
    public final Map<NodeId, Counter> engines = new ConcurrentHashMap<>();
    private final long target;

    public RegionCounterProtocol(long target) {
        this.target = target;
    }

    @Override
    public String name() {
        return "test-region-counter";
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        Counter c = new Counter(self, members, target);
        engines.put(self, c);
        return c;
    }

    @Override
    public void registerMessages(MessageRegistry registry) {}

    public static final class Counter implements Engine {
        private final NodeId self;
        private final List<NodeId> members;
        private final long target;
        private EngineContext ctx;
        private Region region;
        private volatile long count;
        private volatile boolean done;
        private volatile long polls;
        private volatile long pollsAfterStop;
        private long blockedPolls;

        Counter(NodeId self, List<NodeId> members, long target) {
            this.self = self;
            this.members = members;
            this.target = target;
        }

        @Override
        public void start(EngineContext context) {
            ctx = context;
            region = ctx.regions().register("counter", 8, Regions.Notice.POLL);
            ctx.requestPolling(true);
        }

        /** Steps while no member is behind; stops polling once every member reached the target. */
        @Override
        public int doWork() {
            polls++;
            if (done) {
                pollsAfterStop++;
                return 0;
            }
            long slowest = Long.MAX_VALUE;
            for (NodeId m : members) slowest = Math.min(slowest, region.getLong(m, 0));
            if (slowest >= target) {
                done = true;
                ctx.requestPolling(false);
                return 1;
            }
            if (count >= target || count > slowest) {
                // A push to a member that had not registered the region yet (it started later) is
                // lost, as the region contract allows; a blocked member re-pushes its word now and
                // then so that nobody waits forever on a value it never received.
                if (++blockedPolls % 256 == 0) region.push(0, 8, members);
                return 0;
            }
            count++;
            region.setLong(0, count);
            region.push(0, 8, members);
            return 1;
        }

        public long count() {
            return count;
        }

        public boolean done() {
            return done;
        }

        public long polls() {
            return polls;
        }

        /** Polls that came after the engine asked to stop: must stay 0. */
        public long pollsAfterStop() {
            return pollsAfterStop;
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {}

        @Override
        public void onTimer(TimerKey key) {}

        @Override
        public void onClientRequest(ClientRequest request) {
            ctx.reject(request.requestId(), new Rejection.Unavailable(self + " only counts"));
        }
    }
}
