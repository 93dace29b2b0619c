package io.tandem.kv.server;

import io.tandem.testing.CapturedLog;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.codec.FrameFormat;
import io.tandem.codec.KryoCodec;
import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.KvClientSecurity;
import io.tandem.kv.client.KvRejectedException;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.ErrorCode;
import io.tandem.kv.net.MembershipChange;
import io.tandem.kv.net.NodeStatus;
import io.tandem.kv.net.Request;
import io.tandem.kv.net.Response;
import io.tandem.kv.testing.InJvmCluster;
import io.tandem.kv.testing.RawClient;
import io.tandem.kv.testing.SecureSetup;
import io.tandem.protocols.Protocols;
import io.tandem.protocols.raft.RaftMessage;
import io.tandem.testing.Await;
import io.tandem.transport.Endpoint;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14's attacks replayed against a secured three-node cluster (mutual TLS between members,
 * TLS and authentication on the client port, one JVM, real loopback sockets): each fails for the
 * attacker with a typed error or a refused connection and a logged reason, and the cluster keeps
 * serving legitimate clients throughout.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecurityTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private SecureSetup setup;
    private InJvmCluster cluster;

    @BeforeAll
    void startSecuredCluster(@TempDir Path tmp) throws IOException {
        setup = new SecureSetup(Files.createDirectories(tmp.resolve("certs")), 3);
        Map<String, String> settings = new HashMap<>(setup.serverSettings());
        settings.put("max-client-connections-per-source", "32");
        settings.put("client-idle-timeout", "2s");
        cluster = InJvmCluster.start(tmp.resolve("data"), 3, settings);
        cluster.awaitLeader(WAIT);
    }

    @AfterAll
    void stop() {
        if (cluster != null) cluster.close();
    }

    private TandemKvClient client(KvClientSecurity security) {
        return TandemKvClient.connect(cluster.clientConfig().withRequestTimeout(Duration.ofSeconds(5)).withSecurity(security));
    }

    private TandemKvClient as(String name) {
        return client(KvClientSecurity.fromDirectory(setup.dir, name));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private NodeStatus leaderStatus() {
        return cluster.server(cluster.awaitLeader(WAIT)).status();
    }

    private static java.net.http.HttpResponse<String> scrape(javax.net.ssl.SSLContext tls, String uri, String authorization)
            throws IOException, InterruptedException {
        try (java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build()) {
            var request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(uri)).timeout(Duration.ofSeconds(10));
            if (authorization != null) request.header("Authorization", authorization);
            return http.send(request.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        }
    }

    @Test
    void theMetricsEndpointIsHttpsAndNeedsTheReadRole() throws Exception {
        String uri = "https://127.0.0.1:" + cluster.metricsPort(0) + "/metrics";
        var anonymous = scrape(setup.clientContext(null), uri, null);
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"tandem\"");
        assertThat(anonymous.body()).doesNotContain("tandem_");
        assertThat(scrape(setup.clientContext(null), uri, "Bearer not-a-token").statusCode()).isEqualTo(401);
        assertThat(scrape(setup.clientContext("n2"), uri, null).statusCode()).as("a member certificate carries no client role").isEqualTo(401);

        var byToken = scrape(setup.clientContext(null), uri, "Bearer " + setup.appToken);
        assertThat(byToken.statusCode()).isEqualTo(200);
        assertThat(byToken.body()).contains("tandem_");
        assertThat(scrape(setup.clientContext("reader"), uri, null).statusCode()).as("a client certificate with the read role").isEqualTo(200);

        // A certificate of another CA fails the TLS handshake; plain HTTP gets no metrics.
        assertThatThrownBy(() -> scrape(setup.clientContext("foreign-admin"), uri, null)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> scrape(setup.clientContext(null), uri.replace("https:", "http:"), null)).isInstanceOf(IOException.class);
    }

    @Test
    void anAdminCertificateMayDoEverything() {
        try (TandemKvClient admin = as("admin")) {
            admin.put(b("sec-admin"), b("v1"));
            assertThat(admin.get(b("sec-admin"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(b("v1")));
            int leader = cluster.awaitLeader(WAIT);
            int target = (leader + 1) % 3;
            admin.changeMembership(MembershipChange.TRANSFER_LEADERSHIP, InJvmCluster.id(target));
            Await.until(WAIT, () -> cluster.leader().equals(Optional.of(target)), () -> "leadership moved to " + InJvmCluster.id(target) + ": " + cluster.statuses());
        }
    }

    @Test
    void aClientWithoutTheAdminRoleCannotChangeMembership() {
        // The attack: two REMOVE requests to the leader shrank a 3-member group to one voter.
        NodeStatus before = leaderStatus();
        try (CapturedLog log = new CapturedLog(); TandemKvClient app = as("app")) {
            app.put(b("sec-app"), b("allowed")); // the app may write...
            for (String victim : List.of("n2", "n3")) {
                assertThatThrownBy(() -> app.changeMembership(MembershipChange.REMOVE, victim))
                        .isInstanceOfSatisfying(KvRejectedException.class, e -> {
                            assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN);
                            assertThat(e.getMessage()).contains("needs the admin role").contains("client app");
                        });
            }
            assertThatThrownBy(() -> app.changeMembership(MembershipChange.TRANSFER_LEADERSHIP, "n1"))
                    .isInstanceOfSatisfying(KvRejectedException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
            assertThat(log.linesWith("refused ChangeMembership from client app", "needs the admin role", "FORBIDDEN")).isNotEmpty();
        }
        NodeStatus after = leaderStatus();
        assertThat(after.voters()).containsExactlyInAnyOrderElementsOf(before.voters()).hasSize(3);
        assertThat(after.learners()).isEmpty();
        try (TandemKvClient reader = as("reader")) {
            assertThat(reader.get(b("sec-app"))).isPresent();
            assertThatThrownBy(() -> reader.put(b("sec-reader"), b("no")))
                    .isInstanceOfSatisfying(KvRejectedException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        }
    }

    @Test
    void anAnonymousTlsClientMustAuthenticateFirst() {
        try (TandemKvClient anonymous = client(KvClientSecurity.tls(setup.dir.resolve("ca.pem")))) {
            assertThatThrownBy(() -> anonymous.put(b("sec-anon"), b("x")))
                    .isInstanceOfSatisfying(KvRejectedException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
                        assertThat(e.getMessage()).contains("authenticate first");
                    });
            assertThatThrownBy(() -> anonymous.changeMembership(MembershipChange.REMOVE, "n2"))
                    .isInstanceOfSatisfying(KvRejectedException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAUTHENTICATED));
        }
        try (TandemKvClient admin = as("admin")) {
            assertThat(admin.get(b("sec-anon"))).isEmpty();
        }
    }

    @Test
    void tokensAuthenticateOverTlsAndABadTokenIsRefused() {
        KvClientSecurity ca = KvClientSecurity.tls(setup.dir.resolve("ca.pem"));
        try (TandemKvClient ops = client(ca.withToken(setup.adminToken)); TandemKvClient app = client(ca.withToken(setup.appToken))) {
            app.put(b("sec-token"), b("by-app"));
            assertThatThrownBy(() -> app.changeMembership(MembershipChange.REMOVE, "n3"))
                    .isInstanceOfSatisfying(KvRejectedException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
            assertThat(ops.get(b("sec-token"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(b("by-app")));
        }
        try (CapturedLog log = new CapturedLog(); TandemKvClient forger = client(ca.withToken("not-a-token"))) {
            assertThatThrownBy(() -> forger.put(b("sec-forged"), b("x")))
                    .isInstanceOfSatisfying(KvRejectedException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAUTHENTICATED));
            assertThat(log.linesWith("presented a token this node does not accept")).isNotEmpty();
        }
        try (TandemKvClient admin = as("admin")) {
            assertThat(admin.get(b("sec-forged"))).isEmpty();
        }
    }

    @Test
    void plaintextAndForeignCertificatesAreRefusedOnTheClientPort() throws Exception {
        Endpoint port = cluster.clientAddress(0);
        try (CapturedLog log = new CapturedLog(); RawClient plain = new RawClient(port)) {
            plain.send(new Request.ChangeMembership(1, MembershipChange.REMOVE, "n2"));
            Await.until(WAIT, () -> closed(plain), () -> "the server closes a plaintext connection");
            Await.until(WAIT, () -> !log.linesWith("does not speak TLS").isEmpty(), () -> "a log line saying why");
        }
        try (RawClient foreign = new RawClient(setup.attacker(port, "foreign-admin", null))) {
            try {
                foreign.send(new Request.ChangeMembership(1, MembershipChange.REMOVE, "n2"));
            } catch (IOException e) {
                // refused already
            }
            Await.until(WAIT, () -> closed(foreign), () -> "the server closes a connection with a certificate of another CA");
        }
        assertThat(leaderStatus().voters()).hasSize(3);
    }

    private static boolean closed(RawClient c) {
        try {
            return c.closedByServer();
        } catch (IOException e) {
            return true;
        }
    }

    @Test
    void aForgedVoteFromANonMemberDoesNotMoveTheTerm() throws Exception {
        // The attack: a stranger claiming to be n2 sent VoteRequests that pushed the term from 5 to 1001.
        int leader = cluster.awaitLeader(WAIT);
        int follower = (leader + 1) % 3;
        long epoch = cluster.server(leader).status().epoch();
        KryoCodec.Builder kryo = KryoCodec.builder();
        Protocols.byName("raft").registerMessages(kryo);
        byte[] vote = kryo.build().encode(new RaftMessage.VoteRequest(epoch + 1000, Long.MAX_VALUE / 2, epoch + 999, false));
        Endpoint memberPort = new Endpoint("127.0.0.1", Integer.parseInt(cluster.config(follower).peerAddress().toString().split(":")[1]));
        String claimed = InJvmCluster.id((follower + 1) % 3);
        // No certificate, a member certificate of another CA, a client certificate of the cluster's own CA
        // (names no member), and a valid member certificate of a non-member: none may speak as a member.
        for (String identity : new String[] {null, "foreign-n1", "app", "n9"}) {
            try (Socket s = setup.attacker(memberPort, identity, null)) {
                try {
                    OutputStream out = s.getOutputStream();
                    out.write(frame(FrameFormat.TYPE_HANDSHAKE, handshake("test", claimed, InJvmCluster.id(follower))));
                    out.write(frame(FrameFormat.TYPE_MESSAGE, vote));
                    out.flush();
                } catch (IOException e) {
                    // refused during the handshake
                }
                Await.until(WAIT, () -> endOfStream(s), () -> "the member port closes the connection of " + identity);
            }
        }
        assertThat(cluster.server(leader).status().epoch()).as("the term did not move").isEqualTo(epoch);
        assertThat(cluster.awaitLeader(WAIT)).isEqualTo(leader);
        try (TandemKvClient admin = as("admin")) {
            admin.put(b("sec-after-vote"), b("ok"));
        }
    }

    private static boolean endOfStream(Socket s) {
        try {
            s.setSoTimeout(50);
            return s.getInputStream().read() < 0;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** The transport's handshake body: wire version, cluster, from, to (u16-length UTF-8 strings). */
    private static byte[] handshake(String cluster, String from, String to) {
        ByteBuffer b = ByteBuffer.allocate(256);
        b.putShort((short) 1);
        for (String s : new String[] {cluster, from, to}) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            b.putShort((short) bytes.length).put(bytes);
        }
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    private static byte[] frame(byte type, byte[] body) {
        ByteBuffer f = ByteBuffer.allocate(FrameFormat.HEADER_BYTES + body.length);
        FrameFormat.writeHeader(f, type, body.length);
        f.put(body);
        return f.array();
    }

    @Test
    void aConnectionFloodHitsThePerSourceLimitWhileClientsKeepWorking() throws Exception {
        InetAddress flooder = InetAddress.getByName("127.0.0.2");
        Endpoint port = cluster.clientAddress(0);
        List<Socket> flood = new ArrayList<>();
        try (CapturedLog log = new CapturedLog()) {
            for (int i = 0; i < 100; i++) {
                Socket s = new Socket();
                s.bind(new InetSocketAddress(flooder, 0));
                s.connect(new InetSocketAddress(port.host(), port.port()), 5_000);
                flood.add(s);
            }
            Await.until(WAIT, () -> flood.stream().filter(SecurityTest::endOfStream).count() >= 100 - 32,
                    () -> "the connections beyond 32 from 127.0.0.2 are closed");
            assertThat(log.linesWith("refused a client connection from /127.0.0.2", "max-client-connections-per-source")).hasSizeBetween(1, 2);
            try (TandemKvClient admin = as("admin")) {
                admin.put(b("sec-during-flood"), b("ok"));
                assertThat(admin.get(b("sec-during-flood"))).isPresent();
            }
            // The flood's idle sockets are closed by the idle timeout (2 s here): nothing holds a slot for ever.
            Await.until(WAIT, () -> flood.stream().allMatch(SecurityTest::endOfStream), () -> "idle connections closed");
        } finally {
            for (Socket s : flood) s.close();
        }
    }
}
