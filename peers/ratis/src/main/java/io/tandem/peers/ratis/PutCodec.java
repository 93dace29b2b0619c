package io.tandem.peers.ratis;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/** The log entry of one put: the key's length (4 bytes, big-endian), the key, then the value. */
final class PutCodec {
    record Put(ByteString key, ByteString value) {}

    private PutCodec() {}

    /** Copies {@code key} and {@code value} into one new buffer, so the caller may reuse its arrays. */
    static ByteString encode(byte[] key, byte[] value) {
        byte[] out = new byte[4 + key.length + value.length];
        out[0] = (byte) (key.length >>> 24);
        out[1] = (byte) (key.length >>> 16);
        out[2] = (byte) (key.length >>> 8);
        out[3] = (byte) key.length;
        System.arraycopy(key, 0, out, 4, key.length);
        System.arraycopy(value, 0, out, 4 + key.length, value.length);
        return UnsafeByteOperations.unsafeWrap(out); // a fresh array nobody else holds, so wrapping it is safe
    }

    static Put decode(ByteString data) {
        if (data.size() < 4) throw new IllegalArgumentException("put entry of " + data.size() + " bytes is shorter than its header");
        int keyLength = (data.byteAt(0) & 0xff) << 24 | (data.byteAt(1) & 0xff) << 16 | (data.byteAt(2) & 0xff) << 8 | (data.byteAt(3) & 0xff);
        if (keyLength < 0 || 4 + keyLength > data.size()) throw new IllegalArgumentException("put entry's key length " + keyLength + " exceeds its " + data.size() + " bytes");
        return new Put(data.substring(4, 4 + keyLength), data.substring(4 + keyLength));
    }
}
