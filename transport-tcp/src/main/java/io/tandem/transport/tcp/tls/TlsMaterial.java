package io.tandem.transport.tcp.tls;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.UnrecoverableKeyException;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.Certificate;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * A node's TLS key material, loaded and checked once at start so that every misconfiguration is
 * one clear line then, not a handshake failure later: a missing or unreadable file, a file of the
 * wrong kind, a wrong password, a key that does not belong to the certificate, a certificate that
 * has expired or is not yet valid, or one that does not chain to the trusted CAs.
 *
 * <p>Contexts use TLS 1.3 only and the JDK provider (no native library to load or ship).
 */
public final class TlsMaterial {
    private static final Pattern PEM = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
    private static final String[] PROTOCOLS = {"TLSv1.3"};

    private final TlsConfig config;
    private final PrivateKey key;
    private final List<X509Certificate> chain;
    private final List<X509Certificate> trusted;

    private TlsMaterial(TlsConfig config, PrivateKey key, List<X509Certificate> chain, List<X509Certificate> trusted) {
        this.config = config;
        this.key = key;
        this.chain = List.copyOf(chain);
        this.trusted = List.copyOf(trusted);
    }

    /**
     * Reads and checks the files of {@code config}.
     *
     * @throws TlsConfigException naming the file and the problem
     */
    public static TlsMaterial load(TlsConfig config) {
        List<X509Certificate> trusted = readCertificates(config.trustedCertificates(), "trusted CA certificates");
        PrivateKey key;
        List<X509Certificate> chain;
        if (config.pkcs12()) {
            KeyStore store = readPkcs12(config.certificateChain(), config.keyPassword());
            try {
                String alias = null;
                for (String a : Collections.list(store.aliases())) if (store.isKeyEntry(a)) alias = alias == null ? a : alias;
                if (alias == null) throw new TlsConfigException("TLS keystore " + config.certificateChain() + " holds no private key entry");
                key = (PrivateKey) store.getKey(alias, config.keyPassword().toCharArray());
                chain = new ArrayList<>();
                for (Certificate c : store.getCertificateChain(alias)) chain.add((X509Certificate) c);
            } catch (UnrecoverableKeyException e) {
                throw new TlsConfigException("TLS keystore " + config.certificateChain() + ": wrong password for its private key", e);
            } catch (GeneralSecurityException e) {
                throw new TlsConfigException("TLS keystore " + config.certificateChain() + " cannot be read: " + e.getMessage(), e);
            }
        } else {
            chain = readCertificates(config.certificateChain(), "certificate chain");
            key = readPrivateKey(config.privateKey(), config.keyPassword());
        }
        X509Certificate leaf = chain.get(0);
        checkValidity(leaf, config.certificateChain());
        for (X509Certificate ca : trusted) checkValidity(ca, config.trustedCertificates());
        checkKeyMatches(key, leaf, config);
        checkChainsToTrusted(chain, trusted, config);
        return new TlsMaterial(config, key, chain, trusted);
    }

    /**
     * The TLS implementation: OpenSSL (BoringSSL through {@code netty-tcnative}) where its native library
     * loads on this platform and supports TLS 1.3, since it costs less CPU per record than the JDK's; the
     * JDK's provider otherwise, or when the system property {@code tandem.tls.provider} is {@code jdk}.
     * Both give the same handshake, checks and identities.
     */
    public static final SslProvider PROVIDER = chooseProvider(System.getProperty("tandem.tls.provider", "auto"));

    static SslProvider chooseProvider(String wanted) {
        return switch (wanted.toLowerCase(java.util.Locale.ROOT)) {
            case "jdk" -> SslProvider.JDK;
            case "openssl" -> {
                if (!io.netty.handler.ssl.OpenSsl.isAvailable()) {
                    throw new TlsConfigException("tandem.tls.provider=openssl, but OpenSSL does not load here: " + io.netty.handler.ssl.OpenSsl.unavailabilityCause());
                }
                yield SslProvider.OPENSSL;
            }
            case "auto" -> io.netty.handler.ssl.OpenSsl.isAvailable() && SslProvider.isTlsv13Supported(SslProvider.OPENSSL) ? SslProvider.OPENSSL : SslProvider.JDK;
            default -> throw new TlsConfigException("tandem.tls.provider must be auto, openssl or jdk, not '" + wanted + "'");
        };
    }

    /** "OpenSSL" or "JDK TLS": which implementation {@link #PROVIDER} is, for log lines. */
    public static String providerName() {
        return PROVIDER == SslProvider.OPENSSL ? "OpenSSL" : "JDK TLS";
    }

    public TlsConfig config() {
        return config;
    }

    /** This node's own certificate. */
    public X509Certificate certificate() {
        return chain.get(0);
    }

    public CertificateIdentity identity() {
        return CertificateIdentity.of(certificate());
    }

    /** A server context presenting this node's certificate; {@code clientAuth} says whether a peer must present one. */
    public SslContext serverContext(ClientAuth clientAuth) {
        try {
            return SslContextBuilder.forServer(key, chain.toArray(X509Certificate[]::new))
                    .sslProvider(PROVIDER)
                    .protocols(PROTOCOLS)
                    .trustManager(trusted.toArray(X509Certificate[]::new))
                    .clientAuth(clientAuth)
                    .build();
        } catch (IOException e) { // SSLException
            throw new TlsConfigException("cannot build a TLS server context from " + config + ": " + e.getMessage(), e);
        }
    }

    /**
     * The same server identity for the JDK's own TLS (an HTTPS endpoint beside the transport, such as
     * the KV server's metrics): presents this node's certificate, trusts only the configured CAs for
     * a client certificate, TLS 1.3.
     */
    public javax.net.ssl.SSLContext jdkServerContext() {
        try {
            char[] password = new char[0];
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, password);
            keys.setKeyEntry("self", key, password, chain.toArray(X509Certificate[]::new));
            javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, password);
            KeyStore roots = KeyStore.getInstance("PKCS12");
            roots.load(null, password);
            for (int i = 0; i < trusted.size(); i++) roots.setCertificateEntry("ca" + i, trusted.get(i));
            javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(roots);
            javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLSv1.3");
            context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new TlsConfigException("cannot build a JDK TLS server context from " + config + ": " + e.getMessage(), e);
        }
    }

    /** A client context that presents this node's certificate and trusts only the configured CAs. */
    public SslContext clientContext() {
        return clientContext(key, chain, trusted);
    }

    /** A client context that trusts {@code trustedCertificates} and presents no certificate (a client authenticating by token). */
    public static SslContext trustOnlyClientContext(Path trustedCertificates) {
        return clientContext(null, List.of(), readCertificates(trustedCertificates, "trusted CA certificates"));
    }

    private static SslContext clientContext(PrivateKey key, List<X509Certificate> chain, List<X509Certificate> trusted) {
        try {
            SslContextBuilder b = SslContextBuilder.forClient()
                    .sslProvider(PROVIDER)
                    .protocols(PROTOCOLS)
                    .trustManager(trusted.toArray(X509Certificate[]::new))
                    // Peers are identified by the Tandem identity in their certificate (checked after the
                    // handshake), not by host name: members are often addressed by IP or sit behind NAT.
                    .endpointIdentificationAlgorithm(null);
            if (key != null) b.keyManager(key, chain.toArray(X509Certificate[]::new));
            return b.build();
        } catch (IOException e) {
            throw new TlsConfigException("cannot build a TLS client context: " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------------------------- reading

    private static byte[] readFile(Path file, String what) {
        try {
            if (Files.isDirectory(file)) throw new TlsConfigException("TLS " + what + " " + file + " is a directory, not a file");
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new TlsConfigException("TLS " + what + " file " + file + " does not exist (make one with: tandem certs)");
        } catch (AccessDeniedException e) {
            throw new TlsConfigException("TLS " + what + " file " + file + " is not readable by this user");
        } catch (IOException e) {
            throw new TlsConfigException("cannot read the TLS " + what + " file " + file + ": " + e.getMessage(), e);
        }
    }

    private record PemBlock(String type, byte[] der) {}

    private static List<PemBlock> pemBlocks(Path file, String what) {
        byte[] bytes = readFile(file, what);
        String text = new String(bytes, StandardCharsets.US_ASCII);
        List<PemBlock> blocks = new ArrayList<>();
        Matcher m = PEM.matcher(text);
        while (m.find()) {
            try {
                blocks.add(new PemBlock(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
            } catch (IllegalArgumentException e) {
                throw new TlsConfigException("TLS " + what + " file " + file + ": a " + m.group(1) + " block is not valid base64");
            }
        }
        if (blocks.isEmpty()) {
            throw new TlsConfigException("TLS " + what + " file " + file + " holds no PEM block ('-----BEGIN ...-----')"
                    + (TlsConfig.isPkcs12(file) ? "" : "; a PKCS#12 keystore must be named *.p12 or *.pfx"));
        }
        return blocks;
    }

    static List<X509Certificate> readCertificates(Path file, String what) {
        List<X509Certificate> certs = new ArrayList<>();
        for (PemBlock b : pemBlocks(file, what)) {
            if (!b.type().equals("CERTIFICATE")) continue;
            try {
                certs.add((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(b.der())));
            } catch (GeneralSecurityException e) {
                throw new TlsConfigException("TLS " + what + " file " + file + " holds a certificate that cannot be parsed: " + e.getMessage(), e);
            }
        }
        if (certs.isEmpty()) throw new TlsConfigException("TLS " + what + " file " + file + " holds no CERTIFICATE block (is it a key file?)");
        return certs;
    }

    static PrivateKey readPrivateKey(Path file, String password) {
        PemBlock key = null;
        for (PemBlock b : pemBlocks(file, "private key")) {
            if (b.type().endsWith("PRIVATE KEY")) {
                key = b;
                break;
            }
        }
        if (key == null) throw new TlsConfigException("TLS private key file " + file + " holds no PRIVATE KEY block (is it a certificate file?)");
        PKCS8EncodedKeySpec spec;
        switch (key.type()) {
            case "PRIVATE KEY" -> spec = new PKCS8EncodedKeySpec(key.der());
            case "ENCRYPTED PRIVATE KEY" -> {
                if (password == null) throw new TlsConfigException("TLS private key file " + file + " is encrypted: give its password (tls-key-password)");
                spec = decrypt(file, key.der(), password);
            }
            default -> throw new TlsConfigException("TLS private key file " + file + " holds a '" + key.type()
                    + "' block; Tandem reads PKCS#8 keys: convert it with 'openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8.pem'");
        }
        for (String algorithm : new String[] {"EC", "RSA", "Ed25519", "Ed448", "RSASSA-PSS"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
                // try the next algorithm
            }
        }
        throw new TlsConfigException("TLS private key file " + file + " holds a key this JDK cannot read (not EC, RSA or EdDSA, or damaged)");
    }

    private static PKCS8EncodedKeySpec decrypt(Path file, byte[] der, String password) {
        try {
            EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
            SecretKeyFactory f = SecretKeyFactory.getInstance(info.getAlgName());
            return info.getKeySpec(f.generateSecret(new PBEKeySpec(password.toCharArray())));
        } catch (InvalidKeySpecException | java.security.InvalidKeyException e) {
            throw new TlsConfigException("TLS private key file " + file + ": wrong password (or the file is damaged)", e);
        } catch (GeneralSecurityException | IOException e) {
            throw new TlsConfigException("TLS private key file " + file + " cannot be decrypted: " + e.getMessage(), e);
        }
    }

    private static KeyStore readPkcs12(Path file, String password) {
        byte[] bytes = readFile(file, "keystore");
        if (password == null) throw new TlsConfigException("TLS keystore " + file + " needs its password (tls-key-password)");
        try (InputStream in = new ByteArrayInputStream(bytes)) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, password.toCharArray());
            return store;
        } catch (IOException e) {
            if (e.getCause() instanceof UnrecoverableKeyException || String.valueOf(e.getMessage()).contains("password")) {
                throw new TlsConfigException("TLS keystore " + file + ": wrong password (or the file is damaged)", e);
            }
            throw new TlsConfigException("TLS keystore " + file + " is not a PKCS#12 keystore: " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new TlsConfigException("TLS keystore " + file + " cannot be read: " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------------------------- checks

    private static void checkValidity(X509Certificate cert, Path file) {
        try {
            cert.checkValidity();
        } catch (CertificateExpiredException e) {
            throw new TlsConfigException("TLS certificate '" + cert.getSubjectX500Principal().getName() + "' in " + file + " expired on "
                    + cert.getNotAfter().toInstant() + "; issue a new one (e.g. tandem certs)");
        } catch (CertificateNotYetValidException e) {
            throw new TlsConfigException("TLS certificate '" + cert.getSubjectX500Principal().getName() + "' in " + file + " is not valid before "
                    + cert.getNotBefore().toInstant() + " (check this machine's clock)");
        }
    }

    private static void checkKeyMatches(PrivateKey key, X509Certificate cert, TlsConfig config) {
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "Ed25519", "Ed448", "EdDSA" -> key.getAlgorithm();
            default -> null;
        };
        if (algorithm == null) return; // cannot test this kind; the handshake will tell
        boolean matches;
        try {
            byte[] probe = "tandem key check".getBytes(StandardCharsets.US_ASCII);
            Signature s = Signature.getInstance(algorithm);
            s.initSign(key);
            s.update(probe);
            byte[] sig = s.sign();
            Signature v = Signature.getInstance(algorithm);
            v.initVerify(cert.getPublicKey());
            v.update(probe);
            matches = v.verify(sig);
        } catch (GeneralSecurityException e) {
            matches = false;
        }
        if (!matches) {
            throw new TlsConfigException("TLS private key " + (config.privateKey() == null ? "in " + config.certificateChain() : config.privateKey())
                    + " does not belong to the certificate '" + cert.getSubjectX500Principal().getName() + "' in " + config.certificateChain());
        }
    }

    private static void checkChainsToTrusted(List<X509Certificate> chain, List<X509Certificate> trusted, TlsConfig config) {
        Set<TrustAnchor> anchors = new HashSet<>();
        for (X509Certificate ca : trusted) anchors.add(new TrustAnchor(ca, null));
        // The path to validate is the chain without a trailing self-signed root (the anchor stands for it).
        List<X509Certificate> path = new ArrayList<>(chain);
        while (path.size() > 1 && path.getLast().getSubjectX500Principal().equals(path.getLast().getIssuerX500Principal())) path.removeLast();
        try {
            PKIXParameters params = new PKIXParameters(anchors);
            params.setRevocationEnabled(false);
            CertPathValidator.getInstance("PKIX").validate(CertificateFactory.getInstance("X.509").generateCertPath(path), params);
        } catch (CertPathValidatorException e) {
            throw new TlsConfigException("TLS certificate '" + chain.get(0).getSubjectX500Principal().getName() + "' in " + config.certificateChain()
                    + " is not trusted by the CAs in " + config.trustedCertificates() + " " + subjects(trusted) + ": " + e.getMessage()
                    + " (peers would refuse it too; was it issued by another CA?)");
        } catch (GeneralSecurityException e) {
            throw new TlsConfigException("cannot check the TLS certificate chain in " + config.certificateChain() + ": " + e.getMessage(), e);
        }
    }

    private static List<String> subjects(List<X509Certificate> certs) {
        return certs.stream().map(c -> c.getSubjectX500Principal().getName()).toList();
    }
}
