package io.tandem.transport.tcp.tls;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * Where a node's TLS key material lives. Two forms:
 * <ul>
 *   <li>PEM: {@code certificateChain} holds the node's certificate then its issuers;
 *       {@code privateKey} holds its PKCS#8 key ({@code PRIVATE KEY}, or {@code ENCRYPTED PRIVATE
 *       KEY} with {@code keyPassword});</li>
 *   <li>PKCS#12: {@code certificateChain} is a {@code .p12}/{@code .pfx} keystore holding one key
 *       entry and its chain, {@code privateKey} is null and {@code keyPassword} opens it.</li>
 * </ul>
 * {@code trustedCertificates} is a PEM bundle of the CA certificates a peer's certificate must
 * chain to. Files are read and checked by {@link TlsMaterial#load} when the node starts.
 */
public record TlsConfig(Path certificateChain, Path privateKey, String keyPassword, Path trustedCertificates) {
    public TlsConfig {
        Objects.requireNonNull(certificateChain, "certificateChain");
        Objects.requireNonNull(trustedCertificates, "trustedCertificates");
        if (privateKey == null && !isPkcs12(certificateChain)) {
            throw new IllegalArgumentException("TLS: " + certificateChain + " is not a PKCS#12 keystore (.p12 or .pfx), so a private key file is needed too");
        }
    }

    /** PEM certificate chain and unencrypted PKCS#8 key. */
    public static TlsConfig pem(Path certificateChain, Path privateKey, Path trustedCertificates) {
        return new TlsConfig(certificateChain, Objects.requireNonNull(privateKey, "privateKey"), null, trustedCertificates);
    }

    /** A PKCS#12 keystore with its password. */
    public static TlsConfig pkcs12(Path keystore, String password, Path trustedCertificates) {
        return new TlsConfig(keystore, null, Objects.requireNonNull(password, "password"), trustedCertificates);
    }

    /**
     * The layout {@code tandem certs} writes: {@code dir/ca.pem}, {@code dir/<name>.pem} and
     * {@code dir/<name>-key.pem}.
     */
    public static TlsConfig fromDirectory(Path dir, String name) {
        return pem(dir.resolve(name + ".pem"), dir.resolve(name + "-key.pem"), dir.resolve("ca.pem"));
    }

    public TlsConfig withKeyPassword(String password) {
        return new TlsConfig(certificateChain, privateKey, password, trustedCertificates);
    }

    boolean pkcs12() {
        return privateKey == null;
    }

    static boolean isPkcs12(Path p) {
        String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
        return n.endsWith(".p12") || n.endsWith(".pfx");
    }

    @Override
    public String toString() { // never the password
        return "TlsConfig[chain=" + certificateChain + (privateKey == null ? "" : ", key=" + privateKey) + ", trust=" + trustedCertificates
                + (keyPassword == null ? "" : ", password set") + "]";
    }
}
