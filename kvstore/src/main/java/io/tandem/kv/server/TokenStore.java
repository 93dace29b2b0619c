package io.tandem.kv.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The client tokens a server accepts, from a file of lines {@code name roles sha256:<hex>}, e.g.
 * {@code ops read,write,admin sha256:5e884898...}; {@code #} starts a comment. The file holds only
 * SHA-256 hashes of the tokens, so reading it does not reveal a token. Tokens are random 256-bit
 * values ({@link #newToken()}), so an unsalted hash is enough; comparison is constant-time.
 */
public final class TokenStore {
    /** One accepted token. */
    record Entry(String name, Set<Role> roles, byte[] hash) {}

    private final List<Entry> entries;

    private TokenStore(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    static TokenStore empty() {
        return new TokenStore(List.of());
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    int size() {
        return entries.size();
    }

    /** Reads a tokens file; errors name the file and line. */
    public static TokenStore load(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ConfigException("client tokens file " + file + " does not exist (tandem certs writes one)");
        } catch (IOException e) {
            throw new ConfigException("cannot read the client tokens file " + file + ": " + e.getMessage());
        }
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String where = file + " line " + (i + 1);
            String[] parts = line.split("\\s+");
            if (parts.length != 3 || !parts[2].startsWith("sha256:")) throw new ConfigException(where + ": expected 'name roles sha256:<hex>'");
            Set<Role> roles;
            try {
                roles = Role.parseSet(parts[1]);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(where + ": " + e.getMessage());
            }
            byte[] hash;
            try {
                hash = HexFormat.of().parseHex(parts[2].substring("sha256:".length()));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(where + ": the hash is not hexadecimal");
            }
            if (hash.length != 32) throw new ConfigException(where + ": a SHA-256 hash has 64 hex digits, this one " + 2 * hash.length);
            entries.add(new Entry(parts[0], roles, hash));
        }
        return new TokenStore(entries);
    }

    /** The entry whose token this is. */
    Optional<Entry> find(String token) {
        byte[] h = sha256(token);
        Entry match = null;
        for (Entry e : entries) if (MessageDigest.isEqual(e.hash(), h) && match == null) match = e; // no early exit: constant work
        return Optional.ofNullable(match);
    }

    /** A fresh random token (256 bits, URL-safe base64). */
    public static String newToken() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** The line of a tokens file that accepts {@code token} for {@code name} with {@code roles}. */
    public static String line(String name, Set<Role> roles, String token) {
        String r = roles.stream().map(x -> x.name().toLowerCase(java.util.Locale.ROOT)).reduce((a, b) -> a + "," + b).orElse("none");
        return name + " " + r + " sha256:" + HexFormat.of().formatHex(sha256(token));
    }

    private static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
