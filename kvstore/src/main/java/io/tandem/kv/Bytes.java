package io.tandem.kv;

import java.util.Arrays;
import java.util.HexFormat;

/** Value semantics for the byte arrays inside the KV records. */
final class Bytes {
    private Bytes() {}

    static String preview(byte[] bytes) {
        if (bytes == null) return "null";
        HexFormat hex = HexFormat.of();
        return bytes.length <= 32
                ? "0x" + hex.formatHex(bytes)
                : "0x" + hex.formatHex(bytes, 0, 32) + "...(" + bytes.length + " bytes)";
    }

    static int hash(byte[]... arrays) {
        int h = 1;
        for (byte[] a : arrays) h = 31 * h + Arrays.hashCode(a);
        return h;
    }
}
