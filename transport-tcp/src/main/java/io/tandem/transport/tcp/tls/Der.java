package io.tandem.transport.tcp.tls;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The few DER encodings (ITU-T X.690) an X.509 certificate needs, so that {@link DevCertificates}
 * can issue certificates with the JDK alone: the JDK signs and parses certificates but has no
 * public API to build one. Output is checked by parsing it back with the JDK's
 * {@code CertificateFactory}.
 */
final class Der {
    static final int BOOLEAN = 0x01, INTEGER = 0x02, BIT_STRING = 0x03, OCTET_STRING = 0x04, OID = 0x06, UTF8_STRING = 0x0C,
            UTC_TIME = 0x17, GENERALIZED_TIME = 0x18, SEQUENCE = 0x30, SET = 0x31;

    private Der() {}

    static byte[] tlv(int tag, byte[]... parts) {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        for (byte[] p : parts) content.writeBytes(p);
        byte[] c = content.toByteArray();
        ByteArrayOutputStream out = new ByteArrayOutputStream(c.length + 6);
        out.write(tag);
        if (c.length < 0x80) {
            out.write(c.length);
        } else {
            int bytes = (32 - Integer.numberOfLeadingZeros(c.length) + 7) / 8;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) out.write(c.length >>> (8 * i));
        }
        out.writeBytes(c);
        return out.toByteArray();
    }

    static byte[] sequence(byte[]... parts) {
        return tlv(SEQUENCE, parts);
    }

    static byte[] set(byte[]... parts) {
        return tlv(SET, parts);
    }

    static byte[] integer(BigInteger value) {
        return tlv(INTEGER, value.toByteArray());
    }

    static byte[] bool(boolean value) {
        return tlv(BOOLEAN, new byte[] {(byte) (value ? 0xFF : 0)});
    }

    static byte[] octets(byte[] value) {
        return tlv(OCTET_STRING, value);
    }

    static byte[] utf8(String s) {
        return tlv(UTF8_STRING, s.getBytes(StandardCharsets.UTF_8));
    }

    /** A BIT STRING of whole bytes (a signature). */
    static byte[] bits(byte[] value) {
        byte[] c = new byte[value.length + 1];
        System.arraycopy(value, 0, c, 1, value.length);
        return tlv(BIT_STRING, c);
    }

    /** A named-bit BIT STRING of at most 8 bits (key usage); DER drops trailing zero bits. */
    static byte[] namedBits(int firstByte) {
        if (firstByte == 0) return tlv(BIT_STRING, new byte[] {0});
        int unused = Integer.numberOfTrailingZeros(firstByte);
        return tlv(BIT_STRING, new byte[] {(byte) unused, (byte) firstByte});
    }

    static byte[] oid(String dotted) {
        String[] arcs = dotted.split("\\.");
        ByteArrayOutputStream c = new ByteArrayOutputStream();
        base128(c, Long.parseLong(arcs[0]) * 40 + Long.parseLong(arcs[1]));
        for (int i = 2; i < arcs.length; i++) base128(c, Long.parseLong(arcs[i]));
        return tlv(OID, c.toByteArray());
    }

    private static void base128(ByteArrayOutputStream out, long v) {
        int groups = Math.max(1, (64 - Long.numberOfLeadingZeros(v) + 6) / 7);
        for (int i = groups - 1; i >= 0; i--) {
            int b = (int) ((v >>> (7 * i)) & 0x7F);
            out.write(i > 0 ? b | 0x80 : b);
        }
    }

    /** UTCTime up to 2049, GeneralizedTime after, as RFC 5280 §4.1.2.5 requires. */
    static byte[] time(ZonedDateTime t) {
        ZonedDateTime utc = t.withZoneSameInstant(ZoneOffset.UTC);
        if (utc.getYear() < 2050) return tlv(UTC_TIME, DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").format(utc).getBytes(StandardCharsets.US_ASCII));
        return tlv(GENERALIZED_TIME, DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'").format(utc).getBytes(StandardCharsets.US_ASCII));
    }

    /** {@code [n] EXPLICIT}: a constructed context-specific wrapper. */
    static byte[] explicit(int n, byte[] inner) {
        return tlv(0xA0 | n, inner);
    }

    /** {@code [n] IMPLICIT} of a primitive type (GeneralName choices). */
    static byte[] implicit(int n, byte[] content) {
        return tlv(0x80 | n, content);
    }
}
