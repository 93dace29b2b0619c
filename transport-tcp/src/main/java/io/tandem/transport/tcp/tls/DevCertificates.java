package io.tandem.transport.tcp.tls;

import io.tandem.engine.NodeId;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;

/**
 * A development certificate authority, with the JDK alone: EC P-256 keys, ECDSA-SHA256 signatures,
 * X.509 v3 certificates whose subject alternative names carry the Tandem identity
 * ({@link CertificateIdentity}). What {@code tandem certs} and the tests use to make a cluster's
 * certificates; for production use your own CA (any CA works, as long as the SAN URIs are set).
 *
 * <pre>{@code
 * DevCertificates.Issued ca = DevCertificates.newCa("my-cluster dev CA", Duration.ofDays(365));
 * DevCertificates.Issued n1 = DevCertificates.issueMember(ca, NodeId.of("n1"), Duration.ofDays(365));
 * DevCertificates.writeCertificates(dir.resolve("n1.pem"), n1.certificate(), ca.certificate());
 * DevCertificates.writeKey(dir.resolve("n1-key.pem"), n1.key());
 * }</pre>
 */
public final class DevCertificates {
    /** A certificate and its private key. */
    public record Issued(X509Certificate certificate, PrivateKey key) {}

    private static final String EC_SHA256 = "1.2.840.10045.4.3.2";
    private static final String CN = "2.5.4.3", O = "2.5.4.10";
    private static final String BASIC_CONSTRAINTS = "2.5.29.19", KEY_USAGE = "2.5.29.15", EXT_KEY_USAGE = "2.5.29.37", SUBJECT_ALT_NAME = "2.5.29.17";
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1", CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    private static final int DIGITAL_SIGNATURE = 0x80, KEY_CERT_SIGN = 0x04, CRL_SIGN = 0x02;
    private static final SecureRandom random = new SecureRandom();

    private DevCertificates() {}

    /** A self-signed CA certificate valid from now (minus a minute of clock skew) for {@code validity}. */
    public static Issued newCa(String name, Duration validity) {
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        return newCa(name, now.minusMinutes(1), now.plus(validity));
    }

    public static Issued newCa(String name, ZonedDateTime notBefore, ZonedDateTime notAfter) {
        KeyPair keys = newKeyPair();
        byte[] dn = name(name);
        byte[] extensions = Der.sequence(
                extension(BASIC_CONSTRAINTS, true, Der.sequence(Der.bool(true))),
                extension(KEY_USAGE, true, Der.namedBits(KEY_CERT_SIGN | CRL_SIGN)));
        return new Issued(sign(dn, dn, keys.getPublic().getEncoded(), notBefore, notAfter, extensions, keys.getPrivate()), keys.getPrivate());
    }

    /** A member's certificate: SAN {@code urn:tandem:member:<id>}, plus localhost names. */
    public static Issued issueMember(Issued ca, NodeId id, Duration validity) {
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        return issue(ca, id.value(), List.of(CertificateIdentity.memberUri(id)), now.minusMinutes(1), now.plus(validity));
    }

    /** A client's certificate: SAN {@code urn:tandem:client:<name>} and one {@code urn:tandem:role:<role>} per role. */
    public static Issued issueClient(Issued ca, String name, Set<String> roles, Duration validity) {
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        List<URI> uris = new ArrayList<>();
        uris.add(CertificateIdentity.clientUri(name));
        roles.stream().sorted().forEach(r -> uris.add(CertificateIdentity.roleUri(r)));
        return issue(ca, name, uris, now.minusMinutes(1), now.plus(validity));
    }

    /**
     * A leaf certificate signed by {@code ca} with these SAN URIs (and DNS {@code localhost}, IP
     * 127.0.0.1 and ::1), usable for TLS server and client authentication.
     */
    public static Issued issue(Issued ca, String commonName, List<URI> uris, ZonedDateTime notBefore, ZonedDateTime notAfter) {
        KeyPair keys = newKeyPair();
        List<byte[]> names = new ArrayList<>();
        for (URI u : uris) names.add(Der.implicit(6, u.toString().getBytes(StandardCharsets.US_ASCII)));
        names.add(Der.implicit(2, "localhost".getBytes(StandardCharsets.US_ASCII)));
        names.add(Der.implicit(7, InetAddress.getLoopbackAddress().getAddress()));
        names.add(Der.implicit(7, new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
        byte[] extensions = Der.sequence(
                extension(BASIC_CONSTRAINTS, true, Der.sequence()),
                extension(KEY_USAGE, true, Der.namedBits(DIGITAL_SIGNATURE)),
                extension(EXT_KEY_USAGE, false, Der.sequence(Der.oid(SERVER_AUTH), Der.oid(CLIENT_AUTH))),
                extension(SUBJECT_ALT_NAME, false, Der.sequence(names.toArray(byte[][]::new))));
        byte[] issuer = ca.certificate().getSubjectX500Principal().getEncoded();
        return new Issued(sign(issuer, name(commonName), keys.getPublic().getEncoded(), notBefore, notAfter, extensions, ca.key()), keys.getPrivate());
    }

    /** Writes certificates as PEM (leaf first, then its issuers), replacing the file. */
    public static void writeCertificates(Path file, X509Certificate... chain) {
        StringBuilder s = new StringBuilder();
        try {
            for (X509Certificate c : chain) s.append(pem("CERTIFICATE", c.getEncoded()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        write(file, s.toString(), false);
    }

    /** Writes an unencrypted PKCS#8 PEM private key, readable by its owner only where the file system allows. */
    public static void writeKey(Path file, PrivateKey key) {
        write(file, pem("PRIVATE KEY", key.getEncoded()), true);
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private static void write(Path file, String text, boolean secret) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            Files.deleteIfExists(file);
            if (secret && parent != null && Files.getFileStore(parent).supportsFileAttributeView("posix")) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.writeString(file, text, StandardCharsets.US_ASCII, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), random);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot make EC P-256 keys", e);
        }
    }

    private static byte[] name(String commonName) {
        return Der.sequence(
                Der.set(Der.sequence(Der.oid(O), Der.utf8("Tandem"))),
                Der.set(Der.sequence(Der.oid(CN), Der.utf8(commonName))));
    }

    private static byte[] extension(String oid, boolean critical, byte[] value) {
        return critical ? Der.sequence(Der.oid(oid), Der.bool(true), Der.octets(value)) : Der.sequence(Der.oid(oid), Der.octets(value));
    }

    private static X509Certificate sign(byte[] issuer, byte[] subject, byte[] publicKeyInfo, ZonedDateTime notBefore, ZonedDateTime notAfter,
                                        byte[] extensions, PrivateKey signer) {
        byte[] algorithm = Der.sequence(Der.oid(EC_SHA256));
        byte[] tbs = Der.sequence(
                Der.explicit(0, Der.integer(BigInteger.TWO)), // v3
                Der.integer(new BigInteger(63, random).add(BigInteger.ONE)),
                algorithm,
                issuer,
                Der.sequence(Der.time(notBefore), Der.time(notAfter)),
                subject,
                publicKeyInfo,
                Der.explicit(3, extensions));
        try {
            Signature s = Signature.getInstance("SHA256withECDSA");
            s.initSign(signer);
            s.update(tbs);
            byte[] der = Der.sequence(tbs, algorithm, Der.bits(s.sign()));
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a certificate: " + e.getMessage(), e);
        }
    }
}
