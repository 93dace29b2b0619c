package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.codec.KryoCodec;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Region;
import io.tandem.engine.Regions;
import io.tandem.transport.LocalNetwork;
import io.tandem.transport.LocalTransport;
import io.tandem.transport.TransportListener;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link TransportRegions} keeps peers' segments between reads, and looks again after the peers change. */
class TransportRegionsTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");

    @Test
    void aPeerRemovedAndAddedAgainIsReadFromItsNewCopyNotTheOldOne() {
        LocalNetwork net = new LocalNetwork(List.of(A, B), KryoCodec.builder().build());
        LocalTransport a = net.transport(A);
        LocalTransport b = net.transport(B);
        TransportListener quiet = new TransportListener() {
            @Override
            public void onMessage(NodeId from, ProtocolMessage message) {}
        };
        a.start(quiet);
        b.start(quiet);
        try {
            Region atA = new TransportRegions(A, a.regions()).register("sst", 64, Regions.Notice.POLL);
            Region atB = new TransportRegions(B, b.regions()).register("sst", 64, Regions.Notice.POLL);
            atB.local().set(ValueLayout.JAVA_LONG, 0, 7L);
            atB.push(0, 8, List.of(A));
            MemorySegment first = atA.of(B);
            assertThat(first.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(7L);
            assertThat(atA.of(B)).isSameAs(first); // kept between reads

            a.removeMember(B);
            assertThatThrownBy(() -> atA.of(B)).isInstanceOf(IllegalArgumentException.class);
            a.addMember(B, null);
            MemorySegment again = atA.of(B);
            assertThat(again).isNotSameAs(first);
            assertThat(again.get(ValueLayout.JAVA_LONG, 0)).isZero(); // a re-added peer starts from zero
            atB.local().set(ValueLayout.JAVA_LONG, 0, 9L);
            atB.push(0, 8, List.of(A));
            assertThat(atA.of(B).get(ValueLayout.JAVA_LONG, 0)).isEqualTo(9L);
        } finally {
            a.close();
            b.close();
        }
    }
}
