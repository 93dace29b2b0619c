package io.tandem.transport.tcp;

import static io.tandem.transport.tcp.TestSupport.CLUSTER;
import static io.tandem.transport.tcp.TestSupport.N1;
import static io.tandem.transport.tcp.TestSupport.N2;
import static io.tandem.transport.tcp.TestSupport.N3;
import static io.tandem.transport.tcp.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.codec.FrameFormat;
import io.tandem.engine.NodeId;
import io.tandem.transport.Endpoint;
import io.tandem.transport.TransportSetup;
import io.tandem.transport.tcp.TestSupport.Seq;
import io.tandem.transport.tcp.tls.DevCertificates;
import io.tandem.transport.tcp.tls.TlsConfig;
import io.tandem.transport.tcp.tls.TlsConfigException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Mutual TLS on the member port, replaying the attacks of issue 14 against a TLS cluster n1-n2-n3
 * (real sockets on loopback). Each attack must fail at the handshake with one clear log line and a
 * counter tagged with the reason, deliver nothing to the listener, and leave the members' own links
 * working and in place.
 */
@ExtendWith(NettyLeakCheck.class)
class TcpTlsTest {
    private static TestCertificates certs;
    private final AtomicLong seq = new AtomicLong();
    private Cluster cluster;

    @BeforeAll
    static void makeCertificates() {
        certs = new TestCertificates(TestCertificates.tempDir());
    }

    @BeforeEach
    void startTlsCluster() {
        cluster = new Cluster(CLUSTER, TcpTransportTest.fast().withHandshakeTimeout(java.time.Duration.ofSeconds(1)), N1, N2, N3);
        cluster.tlsFor(certs::member);
        cluster.startAll();
        assertMembersWork();
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    private void assertMembersWork() {
        for (NodeId a : List.of(N1, N2, N3)) {
            for (NodeId b : List.of(N1, N2, N3)) if (!a.equals(b)) cluster.assertDelivers(a, b, seq.incrementAndGet());
        }
    }

    private double rejections(NodeId node, String reason) {
        FunctionCounter c = cluster.registry(node).find("tandem.transport.handshake.rejections").tags("node", node.value(), "reason", reason).functionCounter();
        return c == null ? 0 : c.count();
    }

    private void awaitRejection(NodeId node, String reason, double count) {
        await(node + " counts " + count + " rejection(s) for " + reason, () -> rejections(node, reason) >= count,
                () -> cluster.transport(node).stats().toString());
    }

    /** Claims to be {@code claimed} toward {@code target}, then forges a message; returns after the target closed the connection. */
    private void attack(RawPeer raw, NodeId claimed, NodeId target) throws Exception {
        try {
            raw.sendHandshake(CLUSTER, claimed, target);
            raw.sendFrame(FrameFormat.TYPE_MESSAGE, cluster.codec.encode(new Seq(claimed.value().hashCode(), 666_666, new byte[0])));
        } catch (IOException e) {
            // already closed by the target
        }
        raw.awaitClosedByPeer();
    }

    private void assertNothingForgedArrived(NodeId target) {
        assertThat(cluster.recorder(target).from(N1).stream().filter(m -> m instanceof Seq s && s.seq() == 666_666)).isEmpty();
        assertThat(cluster.recorder(target).from(N2).stream().filter(m -> m instanceof Seq s && s.seq() == 666_666)).isEmpty();
    }

    @Test
    void aStrangerWithoutACertificateIsRefusedAtTheTlsHandshake() throws Exception {
        try (CapturedLog log = new CapturedLog(); RawPeer raw = TestCertificates.attacker(cluster.endpoint(N3), null, null)) {
            attack(raw, N2, N3);
            awaitRejection(N3, "tls", 1);
            assertThat(log.linesWith("n3: rejected connection", "TLS handshake failed", "reason=tls")).hasSize(1);
        }
        assertNothingForgedArrived(N3);
        assertThat(cluster.transport(N3).isConnected(N2)).isTrue();
        assertMembersWork();
    }

    @Test
    void aCertificateOfAnotherCaIsRefused() throws Exception {
        try (CapturedLog log = new CapturedLog(); RawPeer raw = TestCertificates.attacker(cluster.endpoint(N2), certs.foreignN1, null)) {
            attack(raw, N1, N2);
            awaitRejection(N2, "tls", 1);
            assertThat(log.linesWith("n2: rejected connection", "not issued by this cluster's CA")).hasSize(1);
        }
        assertNothingForgedArrived(N2);
        assertMembersWork();
    }

    @Test
    void aMemberCertificateClaimingAnotherMembersIdIsRefusedAndTheRealLinkStays() throws Exception {
        // n1 holds a valid member certificate and tries to speak as n2 to n3, which would replace n2's link.
        long opened = cluster.transport(N3).stats().connectionsOpened();
        try (CapturedLog log = new CapturedLog(); RawPeer raw = TestCertificates.attacker(cluster.endpoint(N3), certs.n1, null)) {
            attack(raw, N2, N3);
            awaitRejection(N3, "identity", 1);
            assertThat(log.linesWith("n3: rejected connection", "claims to be member n2 but its certificate is for member n1", "reason=identity")).hasSize(1);
        }
        assertNothingForgedArrived(N3);
        assertThat(cluster.transport(N3).stats().connectionsOpened()).as("n2's link to n3 was not replaced").isEqualTo(opened);
        assertThat(cluster.transport(N3).isConnected(N2)).isTrue();
        assertMembersWork();
    }

    @Test
    void aValidCertificateOfANonMemberCannotJoinOrSpeakForAMember() throws Exception {
        try (RawPeer raw = TestCertificates.attacker(cluster.endpoint(N2), certs.n9, null)) {
            attack(raw, NodeId.of("n9"), N2);
        }
        awaitRejection(N2, "unknown-member", 1);
        try (RawPeer raw = TestCertificates.attacker(cluster.endpoint(N2), certs.n9, null)) {
            attack(raw, N1, N2); // a forged vote or append "from n1"
        }
        awaitRejection(N2, "identity", 1);
        assertNothingForgedArrived(N2);
        assertMembersWork();
    }

    @Test
    void anExpiredCertificateIsRefused() throws Exception {
        try (CapturedLog log = new CapturedLog(); RawPeer raw = TestCertificates.attacker(cluster.endpoint(N2), certs.expiredN1, null)) {
            attack(raw, N1, N2);
            awaitRejection(N2, "tls", 1);
            assertThat(log.linesWith("n2: rejected connection", "TLS handshake failed")).hasSize(1);
        }
        assertNothingForgedArrived(N2);
        assertMembersWork();
    }

    @Test
    void plaintextToATlsPortIsRefusedWithAClearLine() throws Exception {
        try (CapturedLog log = new CapturedLog(); RawPeer raw = new RawPeer(cluster.endpoint(N2))) {
            attack(raw, N1, N2);
            awaitRejection(N2, "tls", 1);
            assertThat(log.linesWith("n2: rejected connection", "does not speak TLS (plaintext to a TLS port")).hasSize(1);
        }
        assertNothingForgedArrived(N2);
        assertMembersWork();
    }

    @Test
    void malformedTlsInputClosesOnlyThatConnection() throws Exception {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[][] inputs = new byte[6][];
        inputs[0] = new byte[] {0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5};                 // a handshake record with a broken ClientHello
        inputs[1] = new byte[] {0x16, 0x03, 0x03, (byte) 0xFF, (byte) 0xFF, 0};               // a record claiming 64 KiB, then nothing
        inputs[2] = new byte[] {0x17, 0x03, 0x03, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}; // application data before any handshake
        inputs[3] = new byte[] {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28};                   // a fatal alert
        inputs[4] = new byte[4096];
        random.nextBytes(inputs[4]);
        inputs[4][0] = 0x16;
        inputs[4][1] = 0x03;
        inputs[4][2] = 0x03;
        inputs[5] = new byte[] {0x16, 0x03};                                                   // a truncated record header, then silence
        TcpTransport n2 = cluster.transport(N2);
        long before = n2.stats().handshakeRejections();
        for (int i = 0; i < inputs.length; i++) {
            try (RawPeer raw = new RawPeer(cluster.endpoint(N2))) {
                raw.sendRaw(inputs[i]);
                if (i != 5) raw.awaitClosedByPeer();
            }
        }
        await("every malformed TLS input refused", () -> n2.stats().handshakeRejections() >= before + inputs.length - 1, () -> n2.stats().toString());
        assertThat(n2.stats().framesReceived()).isPositive();
        assertMembersWork();
    }

    @Test
    void aFloodOfIdleConnectionsHitsThePerSourceLimitWhileMembersKeepWorking() throws Exception {
        // The flood comes from 127.0.0.2 (Linux routes all of 127/8 to loopback); the members dial from 127.0.0.1.
        InetAddress flooder = InetAddress.getByName("127.0.0.2");
        TcpTransport n3 = cluster.transport(N3);
        int limit = n3.config().maxPendingConnectionsPerSource();
        List<Socket> flood = new ArrayList<>();
        try (CapturedLog log = new CapturedLog()) {
            for (int i = 0; i < 200; i++) {
                Socket s = new Socket();
                s.bind(new InetSocketAddress(flooder, 0));
                s.connect(new InetSocketAddress("127.0.0.1", cluster.endpoint(N3).port()), 5_000);
                flood.add(s);
            }
            await("n3 refuses the flood beyond " + limit + " pending connections", () -> n3.refusedConnections() >= 200 - limit, () -> "refused " + n3.refusedConnections());
            assertThat(log.linesWith("n3: refused a connection from", "reason=per-source").size())
                    .as("one line per kind of refusal per interval, not one per connection").isBetween(1, 2);
            // While the flood holds its pending slots, a member restarts and reconnects (from 127.0.0.1).
            cluster.stop(N2);
            cluster.start(N2);
            await("n2 reconnects to n3 during the flood", () -> cluster.transport(N2).isConnected(N3));
            assertMembersWork();
        } finally {
            for (Socket s : flood) s.close();
        }
    }

    /** The serial number of the certificate {@code node} presents to a new connection. */
    private java.math.BigInteger servedSerial(NodeId node) throws Exception {
        try (javax.net.ssl.SSLSocket s = TestCertificates.tlsSocket(cluster.endpoint(node), certs.n1, null)) {
            s.startHandshake();
            return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    @Test
    void aRenewedCertificateIsUsedForNewConnectionsWithoutARestart() throws Exception {
        Path dir = Files.createTempDirectory(certs.dir, "reload");
        for (String f : List.of("ca.pem", "n2.pem", "n2-key.pem")) Files.copy(certs.dir.resolve(f), dir.resolve(f));
        cluster.close();
        cluster = new Cluster(CLUSTER, TcpTransportTest.fast(), N1, N2, N3);
        cluster.tlsFor(id -> id.equals(N2) ? TlsConfig.fromDirectory(dir, "n2") : certs.member(id));
        cluster.startAll();
        assertMembersWork();
        java.math.BigInteger before = servedSerial(N2);
        DevCertificates.Issued renewed = DevCertificates.issueMember(certs.ca, N2, TestCertificates.YEAR);
        DevCertificates.writeCertificates(dir.resolve("n2.pem"), renewed.certificate(), certs.ca.certificate());
        DevCertificates.writeKey(dir.resolve("n2-key.pem"), renewed.key());
        cluster.transport(N2).reloadTls();
        assertThat(servedSerial(N2)).isEqualTo(renewed.certificate().getSerialNumber()).isNotEqualTo(before);
        // Members reconnecting to n2 accept the renewed certificate (same CA, same member id).
        cluster.stop(N1);
        cluster.start(N1);
        assertMembersWork();
        // Broken new files are refused and change nothing.
        Files.writeString(dir.resolve("n2-key.pem"), "not a key");
        assertThatThrownBy(() -> cluster.transport(N2).reloadTls()).isInstanceOf(TlsConfigException.class).hasMessageContaining("n2-key.pem");
        assertThat(servedSerial(N2)).isEqualTo(renewed.certificate().getSerialNumber());
        assertMembersWork();
    }

    // ---------------------------------------------------------------------------- start-up errors

    private String startError(NodeId id, TlsConfig tls) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Map<NodeId, Endpoint> members = Map.of(N1, new Endpoint("127.0.0.1", 1), N2, new Endpoint("127.0.0.1", 2));
        TransportSetup setup = new TransportSetup(CLUSTER, id, members, cluster.codec, registry);
        try {
            new TcpTransport(setup, TcpTransportTest.fast().withTls(tls)).close();
        } catch (TlsConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError("no error for " + tls);
    }

    @Test
    void badTlsFilesAreOneClearLineAtStart() throws Exception {
        Path d = certs.dir;
        assertThat(startError(N1, TlsConfig.pem(d.resolve("missing.pem"), d.resolve("n1-key.pem"), d.resolve("ca.pem"))))
                .contains("missing.pem").contains("does not exist");
        assertThat(startError(N1, TlsConfig.pem(d.resolve("n1.pem"), d.resolve("n1.pem"), d.resolve("ca.pem"))))
                .contains("n1.pem").contains("holds no PRIVATE KEY block");
        assertThat(startError(N1, TlsConfig.pem(d.resolve("n1.pem"), d.resolve("n2-key.pem"), d.resolve("ca.pem"))))
                .contains("n2-key.pem").contains("does not belong to the certificate");
        assertThat(startError(N1, certs.of("expired-n1"))).contains("expired on");
        assertThat(startError(N1, TlsConfig.pem(d.resolve("n1.pem"), d.resolve("n1-key.pem"), d.resolve("other-ca.pem"))))
                .contains("is not trusted by the CAs in").contains("other-ca.pem");
        assertThat(startError(N1, certs.of("foreign-n1"))).contains("is not trusted by the CAs in");
        assertThat(startError(N2, certs.member(N1))).contains("is for member n1").contains("not for member n2").contains("urn:tandem:member:n2");
        Path dirAsFile = Files.createDirectories(d.resolve("a-directory.pem"));
        assertThat(startError(N1, TlsConfig.pem(d.resolve("n1.pem"), dirAsFile, d.resolve("ca.pem")))).contains("is a directory");

        // PKCS#12: the right password works, a wrong one says so.
        Path p12 = d.resolve("n1.p12");
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("n1", certs.n1.key(), "secret".toCharArray(), new X509Certificate[] {certs.n1.certificate(), certs.ca.certificate()});
        try (var out = Files.newOutputStream(p12)) {
            ks.store(out, "secret".toCharArray());
        }
        assertThat(startError(N1, TlsConfig.pkcs12(p12, "not-the-password", d.resolve("ca.pem")))).contains("n1.p12").contains("wrong password");
        Map<NodeId, Endpoint> members = Map.of(N1, new Endpoint("127.0.0.1", 1), N2, new Endpoint("127.0.0.1", 2));
        try (TcpTransport ok = new TcpTransport(new TransportSetup(CLUSTER, N1, members, cluster.codec, new SimpleMeterRegistry()),
                TcpTransportTest.fast().withTls(TlsConfig.pkcs12(p12, "secret", d.resolve("ca.pem"))))) {
            assertThat(ok.tlsEnabled()).isTrue();
        }
        assertThatThrownBy(() -> TlsConfig.pem(d.resolve("n1.pem"), null, d.resolve("ca.pem"))).isInstanceOf(NullPointerException.class);
    }

    @Test
    void generatedCertificatesParseAndNameTheirHolder() {
        DevCertificates.Issued alice = DevCertificates.issueClient(certs.ca, "alice", java.util.Set.of("admin", "read"), TestCertificates.YEAR);
        var id = io.tandem.transport.tcp.tls.CertificateIdentity.of(alice.certificate());
        assertThat(id.client()).contains("alice");
        assertThat(id.roles()).containsExactlyInAnyOrder("admin", "read");
        assertThat(id.member()).isEmpty();
        assertThat(io.tandem.transport.tcp.tls.CertificateIdentity.of(certs.n1.certificate()).member()).contains(N1);
    }
}
