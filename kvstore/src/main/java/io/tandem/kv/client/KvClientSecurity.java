package io.tandem.kv.client;

import io.tandem.transport.tcp.tls.TlsConfig;
import java.nio.file.Path;

/**
 * How a {@link TandemKvClient} proves who it is and checks who it talks to.
 *
 * @param trustedCertificates PEM file of the cluster's CA: turns on TLS and only servers whose
 *                            certificate chains to it and names a member are accepted; null for plaintext
 * @param certificate         this client's certificate chain (PEM) to present (its role SANs give its
 *                            roles); null for none
 * @param key                 this client's PKCS#8 key (PEM), with {@code certificate}
 * @param token               a bearer token sent as the first request of every connection; null for none
 */
public record KvClientSecurity(Path trustedCertificates, Path certificate, Path key, String token) {
    /** Plaintext, anonymous: what a cluster without security expects. */
    public static final KvClientSecurity NONE = new KvClientSecurity(null, null, null, null);

    public KvClientSecurity {
        if ((certificate == null) != (key == null)) throw new IllegalArgumentException("a client certificate needs its key, and a key its certificate");
        if (certificate != null && trustedCertificates == null) throw new IllegalArgumentException("a client certificate needs TLS: give the CA file too");
    }

    /** TLS to servers of the CA in {@code caFile}, no client certificate. */
    public static KvClientSecurity tls(Path caFile) {
        return new KvClientSecurity(caFile, null, null, null);
    }

    /**
     * As {@code tandem certs} lays out {@code dir}: the CA {@code dir/ca.pem}, and the certificate
     * {@code dir/<name>.pem} with key {@code dir/<name>-key.pem}.
     */
    public static KvClientSecurity fromDirectory(Path dir, String name) {
        TlsConfig t = TlsConfig.fromDirectory(dir, name);
        return new KvClientSecurity(t.trustedCertificates(), t.certificateChain(), t.privateKey(), null);
    }

    public KvClientSecurity withToken(String token) {
        return new KvClientSecurity(trustedCertificates, certificate, key, token);
    }

    public boolean tls() {
        return trustedCertificates != null;
    }

    @Override
    public String toString() { // never the token
        return "KvClientSecurity[trust=" + trustedCertificates + ", certificate=" + certificate + ", token " + (token == null ? "none" : "set") + "]";
    }
}
