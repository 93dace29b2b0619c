package io.tandem.transport.tcp;

import io.tandem.engine.NodeId;
import io.tandem.transport.Endpoint;
import io.tandem.transport.tcp.tls.DevCertificates;
import io.tandem.transport.tcp.tls.DevCertificates.Issued;
import io.tandem.transport.tcp.tls.TlsConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.security.Principal;
import java.security.PrivateKey;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A test cluster's certificates, made once per test class: the cluster CA with members n1-n3, a
 * stranger n9 of the same CA (a valid certificate, but not a member), and an impostor n1 from
 * another CA; plus sockets for an attacker holding any of them (or none).
 */
final class TestCertificates {
    static final Duration YEAR = Duration.ofDays(365);
    final Path dir;
    final Issued ca = DevCertificates.newCa("test CA", YEAR);
    final Issued otherCa = DevCertificates.newCa("another CA", YEAR);
    final Issued n1 = DevCertificates.issueMember(ca, TestSupport.N1, YEAR);
    final Issued n9 = DevCertificates.issueMember(ca, NodeId.of("n9"), YEAR);
    final Issued foreignN1 = DevCertificates.issueMember(otherCa, TestSupport.N1, YEAR);
    final Issued expiredN1;

    TestCertificates(Path dir) {
        this.dir = dir;
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        expiredN1 = DevCertificates.issue(ca, "n1", List.of(io.tandem.transport.tcp.tls.CertificateIdentity.memberUri(TestSupport.N1)),
                now.minusDays(30), now.minusDays(1));
        DevCertificates.writeCertificates(dir.resolve("ca.pem"), ca.certificate());
        DevCertificates.writeCertificates(dir.resolve("other-ca.pem"), otherCa.certificate());
        write("n1", n1);
        for (NodeId id : List.of(TestSupport.N2, TestSupport.N3)) write(id.value(), DevCertificates.issueMember(ca, id, YEAR));
        write("n9", n9);
        write("foreign-n1", foreignN1);
        write("expired-n1", expiredN1);
    }

    private void write(String name, Issued issued) {
        DevCertificates.writeCertificates(dir.resolve(name + ".pem"), issued.certificate(), ca.certificate());
        DevCertificates.writeKey(dir.resolve(name + "-key.pem"), issued.key());
    }

    TlsConfig of(String name) {
        return TlsConfig.fromDirectory(dir, name);
    }

    /** A TLS config for member {@code id} of the cluster CA. */
    TlsConfig member(NodeId id) {
        return of(id.value());
    }

    static Path tempDir() {
        try {
            return Files.createTempDirectory("tandem-tls-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A TLS client socket to {@code to} presenting {@code identity} (null: no certificate) and
     * trusting anything (an attacker does not care who answers), from {@code source} (null: any).
     * The TLS handshake is started; with TLS 1.3 a refused client certificate shows only on the
     * next read, as an alert or the end of the stream.
     */
    static RawPeer attacker(Endpoint to, Issued identity, InetAddress source) throws IOException {
        SSLSocket tls = tlsSocket(to, identity, source);
        try {
            tls.startHandshake();
        } catch (IOException e) {
            // refused during the handshake: the caller sees the closed socket
        }
        return new RawPeer(tls);
    }

    /** A connected TLS socket (handshake not started) presenting {@code identity} (null: none), trusting any server. */
    static SSLSocket tlsSocket(Endpoint to, Issued identity, InetAddress source) throws IOException {
        SSLContext ctx;
        try {
            ctx = SSLContext.getInstance("TLSv1.3");
            ctx.init(identity == null ? null : new KeyManager[] {new Presenting(identity)}, new TrustManager[] {new TrustAll()}, null);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        Socket plain = new Socket();
        if (source != null) plain.bind(new InetSocketAddress(source, 0));
        plain.connect(new InetSocketAddress(to.host(), to.port()), 5_000);
        SSLSocket tls = (SSLSocket) ctx.getSocketFactory().createSocket(plain, to.host(), to.port(), true);
        tls.setSoTimeout(5_000);
        return tls;
    }

    /** Presents its certificate whatever CAs the server asks for, as an attacker would (the JDK's own key manager holds it back). */
    private static final class Presenting extends X509ExtendedKeyManager {
        private final Issued identity;

        Presenting(Issued identity) {
            this.identity = identity;
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return new String[] {"me"};
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return "me";
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return "me";
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return new X509Certificate[] {identity.certificate()};
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return identity.key();
        }
    }

    private static final class TrustAll implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
