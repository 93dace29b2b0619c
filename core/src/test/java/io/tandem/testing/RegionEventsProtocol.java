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
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A test engine for region write events: every member registers region "events" with
 * {@link Regions.Notice#EVENT}; the first member, a millisecond after it started (so that the
 * others have registered theirs), pushes the values 1 to
 * {@code pushes} into its word 0, one push each, to every other member, and each of them records,
 * in {@link Engine#onRegionWrite}, the writer and the value then in memory.
 */
public final class RegionEventsProtocol implements Protocol {
    private record Push() implements TimerKey {}

    private static final TimerKey PUSH = new Push();

    public final Map<NodeId, List<String>> seen = new ConcurrentHashMap<>();
    private final int pushes;

    public RegionEventsProtocol(int pushes) {
        this.pushes = pushes;
    }

    @Override
    public String name() {
        return "test-region-events";
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        List<String> mine = new CopyOnWriteArrayList<>();
        seen.put(self, mine);
        return new Engine() {
            private EngineContext ctx;
            private Region region;

            @Override
            public void start(EngineContext context) {
                ctx = context;
                region = ctx.regions().register("events", 8, Regions.Notice.EVENT);
                if (self.equals(members.getFirst())) ctx.schedule(1_000_000L, PUSH);
            }

            @Override
            public void onTimer(TimerKey key) {
                for (long v = 1; v <= pushes; v++) {
                    region.setLong(0, v);
                    region.push(0, 8, members);
                }
            }

            @Override
            public void onRegionWrite(NodeId writer, String name, int offset, int length) {
                mine.add(writer + ":" + name + "@" + offset + "+" + length + "=" + region.getLong(writer, offset));
            }

            @Override
            public void onMessage(NodeId from, ProtocolMessage message) {}

            @Override
            public void onClientRequest(ClientRequest request) {
                ctx.reject(request.requestId(), new Rejection.Unavailable("test engine"));
            }
        };
    }

    @Override
    public void registerMessages(MessageRegistry registry) {}
}
