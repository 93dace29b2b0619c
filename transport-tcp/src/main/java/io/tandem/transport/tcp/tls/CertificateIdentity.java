package io.tandem.transport.tcp.tls;

import io.tandem.engine.NodeId;
import java.net.URI;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who a certificate speaks for, read from its subject alternative names (URIs; RFC 5280 §4.2.1.6):
 * <ul>
 *   <li>{@code urn:tandem:member:<id>} — a member of the cluster: the only id its holder may claim
 *       in the member-port handshake;</li>
 *   <li>{@code urn:tandem:client:<name>} — a client, named in the server's logs;</li>
 *   <li>{@code urn:tandem:role:<role>} — a role granted to the holder on the client port
 *       ({@code read}, {@code write}, {@code admin}); the CA decides roles when it issues the
 *       certificate.</li>
 * </ul>
 * Names live in the SAN rather than the CN because a SAN is typed and a certificate may carry
 * several; a certificate naming two members is refused as ambiguous.
 *
 * @param member  the member id, if the certificate names exactly one
 * @param client  the client name, if any
 * @param roles   the roles granted (lower case)
 * @param subject the subject DN, for log lines
 */
public record CertificateIdentity(Optional<NodeId> member, Optional<String> client, Set<String> roles, String subject) {
    public static final String MEMBER_PREFIX = "urn:tandem:member:";
    public static final String CLIENT_PREFIX = "urn:tandem:client:";
    public static final String ROLE_PREFIX = "urn:tandem:role:";
    private static final int URI_NAME = 6;

    public CertificateIdentity {
        roles = Set.copyOf(roles);
    }

    public static URI memberUri(NodeId id) {
        return URI.create(MEMBER_PREFIX + id.value());
    }

    public static URI clientUri(String name) {
        return URI.create(CLIENT_PREFIX + name);
    }

    public static URI roleUri(String role) {
        return URI.create(ROLE_PREFIX + role.toLowerCase(Locale.ROOT));
    }

    /** Reads the identity; a malformed or duplicated member name yields no member (the holder can then not join). */
    public static CertificateIdentity of(X509Certificate cert) {
        List<NodeId> members = new java.util.ArrayList<>();
        String client = null;
        Set<String> roles = new TreeSet<>();
        Collection<List<?>> names;
        try {
            names = cert.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            names = null;
        }
        if (names != null) {
            for (List<?> n : names) {
                if (n.size() < 2 || !(n.get(0) instanceof Integer type) || type != URI_NAME || !(n.get(1) instanceof String uri)) continue;
                if (uri.startsWith(MEMBER_PREFIX)) {
                    try {
                        members.add(NodeId.of(uri.substring(MEMBER_PREFIX.length())));
                    } catch (IllegalArgumentException e) {
                        members.add(null);
                    }
                } else if (uri.startsWith(CLIENT_PREFIX) && client == null) {
                    client = uri.substring(CLIENT_PREFIX.length());
                } else if (uri.startsWith(ROLE_PREFIX)) {
                    roles.add(uri.substring(ROLE_PREFIX.length()).toLowerCase(Locale.ROOT));
                }
            }
        }
        Optional<NodeId> member = members.size() == 1 && members.get(0) != null ? Optional.of(members.get(0)) : Optional.empty();
        return new CertificateIdentity(member, Optional.ofNullable(client), roles, cert.getSubjectX500Principal().getName());
    }

    /** A short description for log lines: "member n1", "client alice [admin, read]", or the subject. */
    public String describe() {
        if (member.isPresent()) return "member " + member.get() + " (" + subject + ")";
        if (client.isPresent()) return "client " + client.get() + " " + roles + " (" + subject + ")";
        return "'" + subject + "' (names no member or client)";
    }
}
