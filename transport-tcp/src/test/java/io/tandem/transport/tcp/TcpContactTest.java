package io.tandem.transport.tcp;

import static io.tandem.transport.tcp.TestSupport.CLUSTER;
import static io.tandem.transport.tcp.TestSupport.N1;
import static io.tandem.transport.tcp.TestSupport.N2;
import static io.tandem.transport.tcp.TestSupport.N3;
import static io.tandem.transport.tcp.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.FunctionCounter;
import io.tandem.codec.FrameFormat;
import io.tandem.engine.NodeId;
import io.tandem.testing.CapturedLog;
import io.tandem.transport.tcp.TestSupport.Knock;
import io.tandem.transport.tcp.TestSupport.Seq;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Contact connections (derecho.md §5.4, a join request crossing a removal): a known member
 * identity that is not connected as a member reaches the group with contact messages only, over
 * real sockets; a stranger is still refused; a contact peer's protocol messages and region writes
 * are dropped, counted and logged.
 */
@ExtendWith(NettyLeakCheck.class)
class TcpContactTest {
    private static final NodeId STRANGER = NodeId.of("n9");

    private static TcpTransportConfig config() {
        return TcpTransportTest.fast();
    }

    /** Resends {@code knock} from {@code a} until {@code b} has it (a message written into a dying connection may be lost). */
    private static void assertKnockArrives(Cluster cluster, NodeId a, NodeId b, long seq) {
        long[] lastSend = {Long.MIN_VALUE};
        await(a + " -> " + b + " delivers knock " + seq, () -> {
            if (cluster.recorder(b).from(a).stream().anyMatch(m -> m instanceof Knock k && k.seq() == seq)) return true;
            long now = System.nanoTime();
            if (lastSend[0] == Long.MIN_VALUE || now - lastSend[0] > 250_000_000L) {
                assertThat(cluster.transport(a).send(b, new Knock(seq, seq))).as("a known identity takes contact messages").isTrue();
                lastSend[0] = now;
            }
            return false;
        }, () -> "(stats of " + a + ": " + cluster.transport(a).stats() + ")");
    }

    private static double dropped(Cluster cluster, NodeId node, String reason) {
        FunctionCounter c = cluster.registry(node).find("tandem.transport.contact.dropped").tags("node", node.value(), "reason", reason).functionCounter();
        return c == null ? 0 : c.count();
    }

    private static double rejections(Cluster cluster, NodeId node, String reason) {
        FunctionCounter c = cluster.registry(node).find("tandem.transport.handshake.rejections").tags("node", node.value(), "reason", reason).functionCounter();
        return c == null ? 0 : c.count();
    }

    @Test
    void removedMembersReachTheGroupWithContactMessagesOnlyInBothDirections() {
        try (Cluster cluster = new Cluster(config(), N1, N2, N3)) {
            cluster.startAll();
            cluster.assertDelivers(N1, N2, 1);
            cluster.assertDelivers(N3, N2, 1);
            // n2 removes n1 (which dials it: lower id) and n3 (which it dials): neither direction of the member link is left.
            cluster.transport(N2).removeMember(N1);
            cluster.transport(N2).removeMember(N3);
            assertThat(cluster.transport(N2).send(N1, new Seq(2))).as("protocol messages to a removed member are refused").isFalse();

            assertKnockArrives(cluster, N1, N2, 10); // the removed lower id, whose member dials n2 refuses
            assertKnockArrives(cluster, N3, N2, 11); // the removed higher id, which n2 no longer dials
            assertKnockArrives(cluster, N2, N1, 12); // and the group answers (a view probe's answer)
            assertKnockArrives(cluster, N2, N3, 13);

            // Protocol messages from the removed members still never arrive: their member links are refused.
            cluster.transport(N1).send(N2, new Seq(3));
            cluster.transport(N3).send(N2, new Seq(3));
            cluster.assertDelivers(N1, N3, 4); // sent after the Seq(3)s; n1-n3 is a member link on both sides
            assertThat(cluster.recorder(N2).received(N1, 3)).isFalse();
            assertThat(cluster.recorder(N2).received(N3, 3)).isFalse();
            assertThat(cluster.transport(N2).contactDropped()).isZero();

            // Added back, n1 is a member again and its protocol messages arrive.
            cluster.transport(N2).addMember(N1, cluster.endpoint(N1));
            cluster.assertDelivers(N1, N2, 5);
        }
    }

    @Test
    void aContactPeerSendingProtocolMessagesOrRegionWritesIsDroppedCountedAndLogged() throws Exception {
        try (Cluster cluster = new Cluster(config(), N1, N2, N3); CapturedLog log = new CapturedLog()) {
            cluster.startAll();
            cluster.transport(N2).removeMember(N3);
            try (RawPeer raw = new RawPeer(cluster.endpoint(N2))) {
                raw.sendContactHandshake(CLUSTER, N3, N2);
                assertThat(raw.readHandshake()).isEqualTo(new Handshake(CLUSTER, N2, N3, true));
                raw.sendFrame(FrameFormat.TYPE_MESSAGE, cluster.codec.encode(new Seq(3, 666_666, new byte[0])));
                raw.sendFrame(FrameFormat.TYPE_REGION_WRITE, RegionWriteBody.encode("sst".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, new byte[8], 0, 8));
                raw.sendFrame(FrameFormat.TYPE_REGION_FENCE, new byte[8]);
                raw.sendFrame(FrameFormat.TYPE_MESSAGE, cluster.codec.encode(new Knock(7, 7)));
                await("n2 delivers the contact message sent after the dropped frames",
                        () -> cluster.recorder(N2).from(N3).stream().anyMatch(m -> m instanceof Knock k && k.seq() == 7));
            }
            assertThat(cluster.recorder(N2).from(N3)).as("only the contact message was delivered").containsExactly(new Knock(7, 7));
            assertThat(cluster.recorder(N2).regionWrites()).isEmpty();
            assertThat(dropped(cluster, N2, "protocol-message")).isEqualTo(1);
            assertThat(dropped(cluster, N2, "region-write")).isEqualTo(1);
            assertThat(dropped(cluster, N2, "region-fence")).isEqualTo(1);
            assertThat(log.linesWith("n2: dropped Seq from n3, which is not connected as a member", "reason=protocol-message")).hasSize(1);
            assertThat(log.linesWith("n2: dropped a region write from n3", "reason=region-write")).hasSize(1);
        }
    }

    @Test
    void aStrangerIsRefusedAtTheContactHandshake() throws Exception {
        try (Cluster cluster = new Cluster(config(), N1, N2, N3)) {
            cluster.startAll();
            try (RawPeer raw = new RawPeer(cluster.endpoint(N2))) {
                raw.sendContactHandshake(CLUSTER, STRANGER, N2);
                try {
                    raw.sendFrame(FrameFormat.TYPE_MESSAGE, cluster.codec.encode(new Knock(9, 9)));
                } catch (java.io.IOException e) {
                    // closed already
                }
                raw.awaitClosedByPeer();
            }
            await("n2 counts the refusal", () -> rejections(cluster, N2, "unknown-member") >= 1);
            assertThat(cluster.recorder(N2).from(STRANGER)).isEmpty();
            assertThat(cluster.transport(N2).send(STRANGER, new Knock(1, 1))).as("nothing goes to a stranger either").isFalse();
        }
    }

    @Test
    void withTlsAContactDialNeedsTheCertificateOfAKnownMember() throws Exception {
        TestCertificates certs = new TestCertificates(TestCertificates.tempDir());
        try (Cluster cluster = new Cluster(CLUSTER, config(), N1, N2, N3)) {
            cluster.tlsFor(certs::member);
            cluster.startAll();
            cluster.transport(N2).removeMember(N3);
            cluster.transport(N2).removeMember(N1);
            assertKnockArrives(cluster, N3, N2, 21); // a removed member, with its own certificate
            assertKnockArrives(cluster, N2, N1, 22);

            // n9 holds a certificate of the cluster's CA, but is no member: refused, whoever it claims to be.
            try (RawPeer raw = TestCertificates.attacker(cluster.endpoint(N2), certs.n9, null)) {
                raw.sendContactHandshake(CLUSTER, STRANGER, N2);
                raw.awaitClosedByPeer();
            } catch (java.io.IOException e) {
                // closed during the write
            }
            await("n2 refuses n9", () -> rejections(cluster, N2, "unknown-member") >= 1);
            try (RawPeer raw = TestCertificates.attacker(cluster.endpoint(N2), certs.n9, null)) {
                raw.sendContactHandshake(CLUSTER, N3, N2); // speaking for n3 needs n3's key
                raw.sendFrame(FrameFormat.TYPE_MESSAGE, cluster.codec.encode(new Knock(666, 666)));
                raw.awaitClosedByPeer();
            } catch (java.io.IOException e) {
                // closed during the writes
            }
            await("n2 refuses n9 speaking for n3", () -> rejections(cluster, N2, "identity") >= 1);
            assertThat(cluster.recorder(N2).from(N3).stream().filter(m -> m instanceof Knock k && k.seq() == 666)).isEmpty();
            assertThat(cluster.recorder(N2).from(STRANGER)).isEmpty();
        }
    }
}
