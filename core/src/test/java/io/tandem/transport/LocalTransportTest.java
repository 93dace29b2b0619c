package io.tandem.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.testing.TestMessages;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LocalTransportTest {
    private final NodeId a = NodeId.of("a");
    private final NodeId b = NodeId.of("b");

    @Test
    void messagesAreEncodedLikeOnTheWireAndUnregisteredOnesAreRefused() {
        LocalNetwork net = new LocalNetwork(List.of(a, b), TestMessages.codec());
        try (LocalTransport ta = net.transport(a); LocalTransport tb = net.transport(b)) {
            List<Object> got = new ArrayList<>();
            ta.start((from, m) -> {});
            tb.start((from, m) -> got.add(m));
            TestMessages.Ping p = new TestMessages.Ping(3, 4, new byte[] {1});
            assertThat(ta.send(b, p)).isTrue();
            assertThat(got).hasSize(1);
            assertThat(got.getFirst()).isNotSameAs(p); // a decoded copy
            assertThat(ta.send(b, new TestMessages.Unregistered(1))).isFalse();
            assertThat(ta.send(NodeId.of("stranger"), p)).isFalse();
        }
    }

    @Test
    void regionPushesLandInThePeersCopyOfTheWritersRegion() {
        LocalNetwork net = new LocalNetwork(List.of(a, b), TestMessages.codec());
        try (LocalTransport ta = net.transport(a); LocalTransport tb = net.transport(b)) {
            AtomicInteger notified = new AtomicInteger();
            ta.start((from, m) -> {});
            tb.start(new TransportListener() {
                @Override
                public void onMessage(NodeId from, io.tandem.engine.ProtocolMessage message) {}

                @Override
                public void onRegionWrite(NodeId writer, String region, int offset, int length) {
                    notified.incrementAndGet();
                }
            });
            MemorySegment mine = ta.regions().register("sst", 64);
            tb.regions().register("sst", 64);
            mine.set(ValueLayout.JAVA_LONG, 8, 0x0102030405060708L);
            mine.set(ValueLayout.JAVA_LONG, 16, 99L);
            ta.regions().push("sst", 8, 8); // only the first word
            MemorySegment copy = tb.regions().remote(a, "sst");
            assertThat(copy.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(0x0102030405060708L);
            assertThat(copy.get(ValueLayout.JAVA_LONG, 16)).isZero();
            assertThat(notified).hasValue(1);
            assertThatThrownBy(() -> ta.regions().push("sst", 4, 8)).hasMessageContaining("multiples of 8");
            assertThatThrownBy(() -> ta.regions().push("sst", 56, 16)).hasMessageContaining("inside the region");
        }
    }

    @Test
    void wordsAreNeverSeenTornWhileAWriterPushesConcurrently() throws Exception {
        LocalNetwork net = new LocalNetwork(List.of(a, b), TestMessages.codec());
        try (LocalTransport ta = net.transport(a); LocalTransport tb = net.transport(b)) {
            ta.start((from, m) -> {});
            tb.start((from, m) -> {});
            MemorySegment mine = ta.regions().register("r", 8);
            tb.regions().register("r", 8);
            MemorySegment copy = tb.regions().remote(a, "r");
            Thread writer = Thread.ofPlatform().start(() -> {
                for (long i = 1; i <= 200_000; i++) {
                    long word = (i << 32) | i; // both halves equal: a torn read would show unequal halves
                    mine.set(ValueLayout.JAVA_LONG, 0, word);
                    ta.regions().push("r", 0, 8);
                }
            });
            long torn = 0;
            while (writer.isAlive()) {
                long w = copy.get(ValueLayout.JAVA_LONG, 0);
                if ((w >>> 32) != (w & 0xFFFFFFFFL)) torn++;
            }
            writer.join();
            assertThat(torn).isZero();
            assertThat(copy.get(ValueLayout.JAVA_LONG, 0)).isEqualTo((200_000L << 32) | 200_000L);
        }
    }

    @Test
    void membersAreAddedAndRemovedAtRunTimeAndARemovedMembersTrafficIsRefused() {
        NodeId c = NodeId.of("c");
        LocalNetwork net = new LocalNetwork(List.of(a, b), TestMessages.codec());
        var setupOfC = new TransportSetup("t", c, java.util.Map.of(a, Endpoint.UNADDRESSED, b, Endpoint.UNADDRESSED, c, Endpoint.UNADDRESSED),
                TestMessages.codec(), new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
        try (LocalTransport ta = net.transport(a); LocalTransport tc = net.transport(setupOfC)) {
            List<Object> atA = new ArrayList<>();
            List<Object> atC = new ArrayList<>();
            ta.start((from, m) -> atA.add(m));
            tc.start((from, m) -> atC.add(m));
            TestMessages.Ping p = new TestMessages.Ping(1, 1, new byte[0]);
            assertThat(ta.send(c, p)).as("a does not know c yet").isFalse();
            assertThat(tc.send(a, p)).as("a refuses a stranger").isFalse();
            assertThat(atA).isEmpty();

            ta.addMember(c, Endpoint.UNADDRESSED);
            assertThat(ta.peers()).contains(b, c);
            assertThat(ta.send(c, p)).isTrue();
            assertThat(tc.send(a, p)).isTrue();
            assertThat(atA).hasSize(1);
            assertThat(atC).hasSize(1);
            ta.regions().register("r", 8);
            tc.regions().register("r", 8);
            tc.regions().local("r").set(ValueLayout.JAVA_LONG, 0, 9);
            tc.regions().push("r", 0, 8, List.of(a));
            assertThat(ta.regions().remote(c, "r").get(ValueLayout.JAVA_LONG, 0)).isEqualTo(9);

            ta.removeMember(c);
            assertThat(ta.peers()).doesNotContain(c);
            assertThat(tc.send(a, p)).as("a removed member's messages are refused").isFalse();
            assertThat(ta.send(c, p)).isFalse();
            assertThat(atA).hasSize(1);
            assertThatThrownBy(() -> ta.regions().remote(c, "r")).hasMessageContaining("not a peer");
            tc.regions().local("r").set(ValueLayout.JAVA_LONG, 0, 10);
            long push = tc.regions().pushWithCompletion("r", 0, 8, List.of(a)); // refused: a completion without a listener to hear it
            assertThat(push).isPositive();

            ta.addMember(c, Endpoint.UNADDRESSED); // back, from zero
            assertThat(ta.regions().remote(c, "r").get(ValueLayout.JAVA_LONG, 0)).isZero();
            assertThat(tc.send(a, p)).isTrue();
            assertThat(atA).hasSize(2);
        }
    }
}
