package io.tandem.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.kv.client.KvClientSecurity;
import io.tandem.kv.client.KvRejectedException;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.ErrorCode;
import io.tandem.kv.net.Request;
import io.tandem.kv.net.Response;
import io.tandem.kv.testing.FreePorts;
import io.tandem.kv.testing.InJvmCluster;
import io.tandem.kv.testing.RawClient;
import io.tandem.kv.testing.SecureSetup;
import io.tandem.testing.Await;
import io.tandem.transport.tcp.tls.DevCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The security keys of the server config, start-up errors for bad TLS files, and the client port's connection hygiene. */
class SecuritySettingsTest {
    private static final String MEMBERS = "n1=127.0.0.1:7001,n2=127.0.0.1:7002,n3=127.0.0.1:7003";

    @TempDir
    Path tmp;

    private static Map<String, String> flags(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("id", "n1");
        m.put("members", MEMBERS);
        m.put("data-dir", "d");
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }

    private static String error(Map<String, String> flags) {
        try {
            ServerConfig.load(null, flags);
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError("no error for " + flags);
    }

    @Test
    void withoutSecurityKeysEveryClientMayDoEverythingAsBefore() {
        SecurityConfig s = ServerConfig.load(null, flags()).security();
        assertThat(s.tls()).isNull();
        assertThat(s.anonymousRoles()).isEqualTo(EnumSet.allOf(Role.class));
        assertThat(s.authenticationRequired()).isFalse();
        assertThat(s.clientIdleTimeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(s.maxClientConnectionsPerSource()).isEqualTo(256);
    }

    @Test
    void tlsDirTurnsOnTlsAndAuthentication() {
        SecurityConfig s = ServerConfig.load(null, flags("tls-dir", "/etc/tandem", "client-idle-timeout", "30s")).security();
        assertThat(s.tls().certificateChain()).isEqualTo(Path.of("/etc/tandem/n1.pem"));
        assertThat(s.tls().privateKey()).isEqualTo(Path.of("/etc/tandem/n1-key.pem"));
        assertThat(s.tls().trustedCertificates()).isEqualTo(Path.of("/etc/tandem/ca.pem"));
        assertThat(s.anonymousRoles()).isEmpty();
        assertThat(s.clientIdleTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(ServerConfig.load(null, flags("tls-dir", "x", "anonymous-roles", "read")).security().anonymousRoles()).containsExactly(Role.READ);
        assertThat(ServerConfig.load(null, flags("tls-cert", "n1.p12", "tls-ca", "ca.pem", "tls-key-password", "pw")).security().tls().privateKey()).isNull();
    }

    @Test
    void badSecurityKeysAreOneClearLine() {
        assertThat(error(flags("tls-dir", "x", "tls-cert", "c.pem"))).contains("tls-cert conflicts with tls-dir");
        assertThat(error(flags("tls-cert", "c.pem", "tls-key", "k.pem"))).contains("tls-cert needs tls-ca too");
        assertThat(error(flags("tls-key", "k.pem", "tls-ca", "ca.pem"))).contains("tls-key needs tls-cert too");
        assertThat(error(flags("tls-cert", "c.pem", "tls-ca", "ca.pem"))).contains("is not a .p12 keystore, so it needs tls-key too");
        assertThat(error(flags("tls-key-password", "pw"))).contains("tls-key-password is set but TLS is not");
        assertThat(error(flags("tls-dir", "x", "tls-key-password", "env:TANDEM_NO_SUCH_VARIABLE_SET"))).contains("environment variable TANDEM_NO_SUCH_VARIABLE_SET is not set");
        assertThat(error(flags("anonymous-roles", "read,root"))).contains("unknown role 'root'");
        assertThat(error(flags("members", "n1=127.0.0.1:7001,n2=127.0.0.1:7001"))).contains("members n1 and n2 have the same address 127.0.0.1:7001");
    }

    private String startError(Map<String, String> extra) {
        InJvmCluster c = new InJvmCluster(tmp.resolve("data"), 3, extra);
        try {
            c.start(1).close();
        } catch (ServerStartException e) {
            return e.getMessage();
        }
        throw new AssertionError("n2 started with " + extra);
    }

    @Test
    void badTlsFilesStopTheServerAtStartWithOneLine() throws Exception {
        SecureSetup setup = new SecureSetup(Files.createDirectories(tmp.resolve("certs")), 3);
        assertThat(startError(Map.of("tls-dir", tmp.resolve("empty").toString()))).startsWith("n2 could not start: TLS").contains("does not exist");
        Path d = setup.dir;
        assertThat(startError(Map.of("tls-cert", d.resolve("n1.pem").toString(), "tls-key", d.resolve("n1-key.pem").toString(), "tls-ca", d.resolve("ca.pem").toString())))
                .contains("is for member n1").contains("not for member n2");
        assertThat(startError(Map.of("tls-cert", d.resolve("foreign-n1.pem").toString(), "tls-key", d.resolve("foreign-n1-key.pem").toString(),
                "tls-ca", d.resolve("ca.pem").toString()))).contains("is not trusted by the CAs in");
        assertThat(startError(Map.of("tls-dir", d.toString(), "client-tokens", tmp.resolve("no-tokens").toString()))).contains("client tokens file").contains("does not exist");
        Files.writeString(tmp.resolve("bad-tokens"), "ops admin md5:1234\n");
        assertThat(startError(Map.of("tls-dir", d.toString(), "client-tokens", tmp.resolve("bad-tokens").toString()))).contains("bad-tokens line 1");
    }

    @Test
    void aRefusedConnectionExecutesNothingAndIdleConnectionsAreClosed() throws Exception {
        // The issue: a connection answered OVERLOADED still executed puts that arrived before it closed.
        try (InJvmCluster cluster = InJvmCluster.start(tmp.resolve("plain"), 1, Map.of("max-client-connections", "2", "client-idle-timeout", "1s"))) {
            cluster.awaitLeader(Duration.ofSeconds(30));
            var port = cluster.clientAddress(0);
            try (RawClient a = new RawClient(port); RawClient b = new RawClient(port); RawClient third = new RawClient(port)) {
                assertThat(a.call(new Request.Status(1))).isInstanceOf(Response.StatusReport.class);
                assertThat(b.call(new Request.Status(1))).isInstanceOf(Response.StatusReport.class);
                byte[] put = new io.tandem.kv.KvStateMachine().codec().encode(new io.tandem.kv.KvCommand.Put("refused".getBytes(StandardCharsets.UTF_8), new byte[] {1}));
                for (int i = 0; i < 20; i++) {
                    try {
                        third.send(new Request.Command(i + 1, 0, 0, put));
                    } catch (java.io.IOException e) {
                        break; // closed already
                    }
                }
                Response answer = third.receive();
                assertThat(answer).isInstanceOfSatisfying(Response.Error.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OVERLOADED));
                Await.until(Duration.ofSeconds(10), () -> closed(third), () -> "the refused connection is closed");
                // Idle connections are closed after the idle timeout, which frees their slots.
                Await.until(Duration.ofSeconds(10), () -> closed(a) && closed(b), () -> "idle connections closed");
            }
            try (RawClient reader = new RawClient(port)) {
                byte[] get = new io.tandem.kv.KvStateMachine().codec().encode(new io.tandem.kv.KvQuery.Get("refused".getBytes(StandardCharsets.UTF_8)));
                Response r = reader.call(new Request.Query(1, io.tandem.engine.ReadPolicy.LINEARIZABLE, get));
                assertThat(r).isInstanceOf(Response.Result.class);
                var result = new io.tandem.kv.KvStateMachine().codec().decodeResult(((Response.Result) r).result());
                assertThat(result).as("no put of the refused connection was applied").isInstanceOf(io.tandem.kv.KvResult.NotFound.class);
            }
        }
    }

    private static boolean closed(RawClient c) {
        try {
            return c.closedByServer();
        } catch (java.io.IOException e) {
            return true;
        }
    }

    @Test
    void newTokensAreTakenWithoutARestart() throws Exception {
        SecureSetup setup = new SecureSetup(Files.createDirectories(tmp.resolve("certs")), 1);
        Path tokens = setup.dir.resolve("tokens");
        try (InJvmCluster cluster = InJvmCluster.start(tmp.resolve("reload"), 1, setup.serverSettings(), Duration.ofMillis(100))) {
            cluster.awaitLeader(Duration.ofSeconds(30));
            KvClientSecurity ca = KvClientSecurity.tls(setup.dir.resolve("ca.pem"));
            String fresh = TokenStore.newToken();
            try (TandemKvClient c = TandemKvClient.connect(cluster.clientConfig().withRequestTimeout(Duration.ofSeconds(5)).withSecurity(ca.withToken(fresh)))) {
                assertThatThrownBy(() -> c.put("k".getBytes(StandardCharsets.UTF_8), new byte[] {1}))
                        .isInstanceOfSatisfying(KvRejectedException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAUTHENTICATED));
            }
            Files.writeString(tokens, TokenStore.line("new", EnumSet.of(Role.READ, Role.WRITE), fresh) + "\n", java.nio.file.StandardOpenOption.APPEND);
            cluster.server(0).reloadSecurity();
            try (TandemKvClient c = TandemKvClient.connect(cluster.clientConfig().withSecurity(ca.withToken(fresh)))) {
                c.put("k".getBytes(StandardCharsets.UTF_8), new byte[] {1});
            }
            // The server also notices a changed file by itself (every 10 s by default; this cluster looks every 100 ms,
            // so the await below ends on the first check after the change instead of sleeping out a 10 s period).
            String later = TokenStore.newToken();
            Files.writeString(tokens, TokenStore.line("later", EnumSet.of(Role.READ), later) + "\n", java.nio.file.StandardOpenOption.APPEND);
            Files.setLastModifiedTime(tokens, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 2_000));
            Await.until(Duration.ofSeconds(40), () -> {
                try (TandemKvClient c = TandemKvClient.connect(cluster.clientConfig().withRequestTimeout(Duration.ofSeconds(2)).withSecurity(ca.withToken(later)))) {
                    return c.get("k".getBytes(StandardCharsets.UTF_8)).isPresent();
                } catch (KvRejectedException e) {
                    return false;
                }
            }, () -> "the server picks up the changed tokens file");
        }
    }

    @Test
    void aRenewedCertificateReachesTheMetricsEndpointWithoutARestart() throws Exception {
        SecureSetup setup = new SecureSetup(Files.createDirectories(tmp.resolve("metrics-certs")), 1);
        try (InJvmCluster cluster = InJvmCluster.start(tmp.resolve("metrics-reload"), 1, setup.serverSettings())) {
            cluster.awaitLeader(Duration.ofSeconds(30));
            String uri = "https://127.0.0.1:" + cluster.metricsPort(0) + "/metrics";
            assertThat(servedSerial(setup, uri)).isEqualTo(setup.issued.get("n1").certificate().getSerialNumber());
            DevCertificates.Issued renewed = DevCertificates.issueMember(setup.ca, io.tandem.engine.NodeId.of("n1"), Duration.ofDays(365));
            DevCertificates.writeCertificates(setup.dir.resolve("n1.pem"), renewed.certificate(), setup.ca.certificate());
            DevCertificates.writeKey(setup.dir.resolve("n1-key.pem"), renewed.key());
            cluster.server(0).reloadSecurity();
            assertThat(servedSerial(setup, uri)).as("a new scrape after the reload").isEqualTo(renewed.certificate().getSerialNumber());
        }
    }

    /** The serial number of the certificate the metrics endpoint presents to a new connection of a reader; the scrape must succeed. */
    private static java.math.BigInteger servedSerial(SecureSetup setup, String uri) throws Exception {
        // A new SSLContext per call, so no TLS session is resumed across the reload.
        try (java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().sslContext(setup.clientContext("reader")).connectTimeout(Duration.ofSeconds(5)).build()) {
            var response = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(uri)).timeout(Duration.ofSeconds(10)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            var certificate = (java.security.cert.X509Certificate) response.sslSession().orElseThrow().getPeerCertificates()[0];
            return certificate.getSerialNumber();
        }
    }

    @Test
    void tokenFilesHoldOnlyHashes() throws Exception {
        String token = TokenStore.newToken();
        String line = TokenStore.line("ops", EnumSet.of(Role.ADMIN, Role.READ), token);
        assertThat(line).startsWith("ops read,admin sha256:").doesNotContain(token);
        Path f = tmp.resolve("tokens");
        Files.write(f, List.of("# comment", line));
        TokenStore store = TokenStore.load(f);
        assertThat(store.find(token)).hasValueSatisfying(e -> assertThat(e.roles()).containsExactlyInAnyOrder(Role.ADMIN, Role.READ));
        assertThat(store.find(token + "x")).isEmpty();
        assertThatThrownBy(() -> TokenStore.load(tmp.resolve("none"))).hasMessageContaining("does not exist");
    }
}
