package io.tandem.kv.testing;

import io.tandem.engine.NodeId;
import io.tandem.kv.server.Role;
import io.tandem.kv.server.TokenStore;
import io.tandem.transport.Endpoint;
import io.tandem.transport.tcp.tls.DevCertificates;
import io.tandem.transport.tcp.tls.DevCertificates.Issued;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * The certificates and tokens of a secured test cluster n1..nN, laid out as {@code tandem certs}
 * does (ca.pem, nX.pem, nX-key.pem, admin.pem, app.pem, tokens), plus an impostor CA; and raw TLS
 * sockets for attackers.
 */
public final class SecureSetup {
    private static final Duration YEAR = Duration.ofDays(365);
    public final Path dir;
    public final Issued ca = DevCertificates.newCa("test cluster CA", YEAR);
    public final Issued otherCa = DevCertificates.newCa("impostor CA", YEAR);
    public final Map<String, Issued> issued = new LinkedHashMap<>();
    public final String adminToken = TokenStore.newToken();
    public final String appToken = TokenStore.newToken();

    public SecureSetup(Path dir, int members) {
        this.dir = dir;
        for (int i = 1; i <= members; i++) {
            NodeId id = NodeId.of("n" + i);
            write(id.value(), DevCertificates.issueMember(ca, id, YEAR), ca);
        }
        write("admin", DevCertificates.issueClient(ca, "admin", Set.of("read", "write", "admin"), YEAR), ca);
        write("app", DevCertificates.issueClient(ca, "app", Set.of("read", "write"), YEAR), ca);
        write("reader", DevCertificates.issueClient(ca, "reader", Set.of("read"), YEAR), ca);
        write("foreign-admin", DevCertificates.issueClient(otherCa, "admin", Set.of("read", "write", "admin"), YEAR), otherCa);
        write("foreign-n1", DevCertificates.issueMember(otherCa, NodeId.of("n1"), YEAR), otherCa);
        write("n9", DevCertificates.issueMember(ca, NodeId.of("n9"), YEAR), ca);
        DevCertificates.writeCertificates(dir.resolve("ca.pem"), ca.certificate());
        try {
            Files.writeString(dir.resolve("tokens"), "# test tokens\n"
                    + TokenStore.line("ops", EnumSet.allOf(Role.class), adminToken) + "\n"
                    + TokenStore.line("app", EnumSet.of(Role.READ, Role.WRITE), appToken) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void write(String name, Issued cert, Issued signer) {
        issued.put(name, cert);
        DevCertificates.writeCertificates(dir.resolve(name + ".pem"), cert.certificate(), signer.certificate());
        DevCertificates.writeKey(dir.resolve(name + "-key.pem"), cert.key());
    }

    /** The server settings that turn everything on. */
    public Map<String, String> serverSettings() {
        return Map.of("tls-dir", dir.toString(), "client-tokens", dir.resolve("tokens").toString());
    }

    /** A client TLS context presenting {@code name}'s certificate (null: none) and trusting any server. */
    public SSLContext clientContext(String name) {
        Issued identity = name == null ? null : issued.get(name);
        try {
            SSLContext ctx = SSLContext.getInstance("TLSv1.3");
            ctx.init(identity == null ? null : new KeyManager[] {new Presenting(identity)}, new TrustManager[] {new TrustAll()}, null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A TLS socket to {@code to} presenting {@code name}'s certificate (null: none), trusting any
     * server, from {@code source} (null: any); the TLS handshake has been attempted.
     */
    public Socket attacker(Endpoint to, String name, InetAddress source) throws IOException {
        SSLContext ctx = clientContext(name);
        Socket plain = new Socket();
        if (source != null) plain.bind(new InetSocketAddress(source, 0));
        plain.connect(new InetSocketAddress(to.host(), to.port()), 5_000);
        SSLSocket tls = (SSLSocket) ctx.getSocketFactory().createSocket(plain, to.host(), to.port(), true);
        tls.setSoTimeout(10_000);
        try {
            tls.startHandshake();
        } catch (IOException e) {
            // refused: the caller sees a closed socket
        }
        return tls;
    }

    /** Presents its certificate whatever the server asks for, as an attacker would. */
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
