package io.tandem.kv.btree;

import static io.tandem.kv.btree.Entry.preview;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * The snapshot stream of a tree: its entries in key order, nothing about its shape, so a snapshot
 * can be restored into a tree of any order.
 *
 * <pre>
 *   magic    u32     0x544B5642 ("TKVB")
 *   version  u8      1
 *   count    s64     number of entries, 0..2^31-1
 *   entries  count x (varint keyLength, key, varint valueLength, value), keys strictly ascending
 *   crc32c   u32     of every byte above
 * </pre>
 *
 * Varints are unsigned LEB128 of at most 5 bytes. The reader checks the order of the keys, the
 * checksum and that nothing follows it, and allocates nothing ahead of the bytes it has read, so a
 * corrupt count or length costs at most the stream's real size.
 */
final class SnapshotFormat {
    static final int MAGIC = 0x544B5642;
    static final byte VERSION = 1;
    private static final int BUFFER_BYTES = 64 * 1024;

    private SnapshotFormat() {}

    static void write(TreeSnapshot snapshot, OutputStream out) throws IOException {
        BufferedOutputStream buffered = new BufferedOutputStream(out, BUFFER_BYTES);
        CRC32C crc = new CRC32C();
        DataOutputStream data = new DataOutputStream(new CheckedOutputStream(buffered, crc));
        data.writeInt(MAGIC);
        data.writeByte(VERSION);
        data.writeLong(snapshot.size());
        byte[] varint = new byte[5];
        for (Cursor cursor = new Cursor(snapshot.root(), snapshot.height(), null); cursor.valid(); cursor.advance()) {
            writeBytes(data, cursor.key(), varint);
            writeBytes(data, cursor.value(), varint);
        }
        data.flush();
        int checksum = (int) crc.getValue();
        buffered.write(new byte[] {(byte) (checksum >>> 24), (byte) (checksum >>> 16), (byte) (checksum >>> 8), (byte) checksum});
        buffered.flush();
    }

    static TreeSnapshot read(InputStream in, int order) throws IOException {
        BufferedInputStream buffered = new BufferedInputStream(in, BUFFER_BYTES);
        CRC32C crc = new CRC32C();
        DataInputStream data = new DataInputStream(new CheckedInputStream(buffered, crc));
        int magic = data.readInt();
        if (magic != MAGIC) {
            throw new IOException(String.format("not a B+-tree snapshot: magic 0x%08X, expected 0x%08X", magic, MAGIC));
        }
        byte version = data.readByte();
        if (version != VERSION) {
            throw new IOException("unsupported B+-tree snapshot format version " + version + " (this build reads " + VERSION + ")");
        }
        long count = data.readLong();
        if (count < 0 || count > Integer.MAX_VALUE) throw new IOException("corrupt B+-tree snapshot: entry count " + count);
        BulkLoader loader = new BulkLoader(order, (int) count);
        byte[] previousKey = null;
        for (long i = 0; i < count; i++) {
            byte[] key = readBytes(data);
            byte[] value = readBytes(data);
            if (previousKey != null && Node.compare(previousKey, key) >= 0) {
                throw new IOException("corrupt B+-tree snapshot: key " + preview(key) + " at entry " + i
                        + " does not follow " + preview(previousKey));
            }
            loader.add(key, value);
            previousKey = key;
        }
        int computed = (int) crc.getValue();
        byte[] trailer = buffered.readNBytes(4);
        if (trailer.length < 4) throw new EOFException("B+-tree snapshot truncated: checksum missing");
        int stored = (trailer[0] & 0xFF) << 24 | (trailer[1] & 0xFF) << 16 | (trailer[2] & 0xFF) << 8 | trailer[3] & 0xFF;
        if (stored != computed) {
            throw new IOException(String.format("B+-tree snapshot checksum mismatch: stored 0x%08X, computed 0x%08X", stored, computed));
        }
        if (buffered.read() != -1) throw new IOException("corrupt B+-tree snapshot: bytes after the checksum");
        return loader.finish();
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes, byte[] varint) throws IOException {
        int length = bytes.length;
        int n = 0;
        while ((length & ~0x7F) != 0) {
            varint[n++] = (byte) ((length & 0x7F) | 0x80);
            length >>>= 7;
        }
        varint[n++] = (byte) length;
        out.write(varint, 0, n);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int length = 0;
        for (int shift = 0; ; shift += 7) {
            if (shift > 28) throw new IOException("corrupt B+-tree snapshot: length varint longer than 5 bytes");
            int b = in.readUnsignedByte();
            if (shift == 28 && (b & 0xF8) != 0) throw new IOException("corrupt B+-tree snapshot: length exceeds 2^31-1");
            length |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) break;
        }
        byte[] bytes = in.readNBytes(length); // grows with the bytes actually present
        if (bytes.length != length) throw new EOFException("B+-tree snapshot truncated inside an entry");
        return bytes;
    }
}
