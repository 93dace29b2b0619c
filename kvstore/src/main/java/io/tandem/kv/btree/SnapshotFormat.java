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
 * The snapshot stream of a tree: its entries in key order, and in version 2 also its shape, so that a
 * restored tree has exactly the nodes of the tree that wrote it. Optimistic P-SMR needs that: its
 * safety check looks at leaf fill and leaf bounds, so a replica restored from a snapshot must give
 * the same verdicts as one that never restarted. A tree of another order ignores the shape and
 * bulk-loads the entries, as for version 1.
 *
 * <pre>
 *   magic    u32     0x544B5642 ("TKVB")
 *   version  u8      1 or 2
 *   count    s64     number of entries, 0..2^31-1
 *   order    u32     (version 2) the order of the tree that wrote it
 *   entries  count x (varint keyLength, key, varint valueLength, value), keys strictly ascending
 *   shape    (version 2) pre-order: leaf = u8 0, varint entries; internal = u8 1, varint children,
 *            (children - 1) x (varint length, separator), then each child
 *   crc32c   u32     of every byte above
 * </pre>
 *
 * Varints are unsigned LEB128 of at most 5 bytes. The reader checks the order of the keys, the
 * checksum and that nothing follows it, and allocates nothing ahead of the bytes it has read, so a
 * corrupt count or length costs at most the stream's real size.
 */
final class SnapshotFormat {
    static final int MAGIC = 0x544B5642;
    static final byte VERSION = 2;
    static final byte ENTRIES_ONLY = 1;
    private static final int BUFFER_BYTES = 64 * 1024;

    private SnapshotFormat() {}

    static void write(TreeSnapshot snapshot, OutputStream out) throws IOException {
        write(snapshot, out, false);
    }

    /** Writes version 2 (entries and shape) if {@code shaped}, else version 1 (entries only). */
    static void write(TreeSnapshot snapshot, OutputStream out, boolean shaped) throws IOException {
        BufferedOutputStream buffered = new BufferedOutputStream(out, BUFFER_BYTES);
        CRC32C crc = new CRC32C();
        DataOutputStream data = new DataOutputStream(new CheckedOutputStream(buffered, crc));
        data.writeInt(MAGIC);
        data.writeByte(shaped ? VERSION : ENTRIES_ONLY);
        data.writeLong(snapshot.size());
        if (shaped) data.writeInt(snapshot.order());
        byte[] varint = new byte[5];
        for (Cursor cursor = new Cursor(snapshot.root(), snapshot.height(), null); cursor.valid(); cursor.advance()) {
            writeBytes(data, cursor.key(), varint);
            writeBytes(data, cursor.value(), varint);
        }
        if (shaped) writeShape(data, snapshot.root(), varint);
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
        if (version != 1 && version != VERSION) {
            throw new IOException("unsupported B+-tree snapshot format version " + version + " (this build reads 1 and " + VERSION + ")");
        }
        long count = data.readLong();
        if (count < 0 || count > Integer.MAX_VALUE) throw new IOException("corrupt B+-tree snapshot: entry count " + count);
        int writtenOrder = version == 1 ? -1 : data.readInt();
        BulkLoader loader = new BulkLoader(order, (int) count);
        java.util.ArrayList<byte[]> keys = version == 1 ? null : new java.util.ArrayList<>();
        java.util.ArrayList<byte[]> values = version == 1 ? null : new java.util.ArrayList<>();
        byte[] previousKey = null;
        for (long i = 0; i < count; i++) {
            byte[] key = readBytes(data);
            byte[] value = readBytes(data);
            if (previousKey != null && Node.compare(previousKey, key) >= 0) {
                throw new IOException("corrupt B+-tree snapshot: key " + preview(key) + " at entry " + i
                        + " does not follow " + preview(previousKey));
            }
            loader.add(key, value);
            if (keys != null) {
                keys.add(key);
                values.add(value);
            }
            previousKey = key;
        }
        TreeSnapshot shaped = null;
        if (version == VERSION) {
            ShapeReader shape = new ShapeReader(data, keys, values, writtenOrder);
            Node root = shape.node(0);
            if (shape.next != count) throw new IOException("corrupt B+-tree snapshot: the shape holds " + shape.next + " of " + count + " entries");
            if (writtenOrder == order) shaped = new TreeSnapshot(root, (int) count, shape.height, order);
        }
        int computed = (int) crc.getValue();
        byte[] trailer = buffered.readNBytes(4);
        if (trailer.length < 4) throw new EOFException("B+-tree snapshot truncated: checksum missing");
        int stored = (trailer[0] & 0xFF) << 24 | (trailer[1] & 0xFF) << 16 | (trailer[2] & 0xFF) << 8 | trailer[3] & 0xFF;
        if (stored != computed) {
            throw new IOException(String.format("B+-tree snapshot checksum mismatch: stored 0x%08X, computed 0x%08X", stored, computed));
        }
        if (buffered.read() != -1) throw new IOException("corrupt B+-tree snapshot: bytes after the checksum");
        return shaped != null ? shaped : loader.finish();
    }

    private static void writeShape(DataOutputStream out, Node node, byte[] varint) throws IOException {
        switch (node) {
            case Node.Leaf leaf -> {
                out.writeByte(0);
                writeVarint(out, leaf.keys.length, varint);
            }
            case Node.Internal internal -> {
                out.writeByte(1);
                writeVarint(out, internal.children.length, varint);
                for (byte[] separator : internal.keys) writeBytes(out, separator, varint);
                for (Node child : internal.children) writeShape(out, child, varint);
            }
        }
    }

    private static void writeVarint(DataOutputStream out, int value, byte[] varint) throws IOException {
        int n = 0;
        while ((value & ~0x7F) != 0) {
            varint[n++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        varint[n++] = (byte) value;
        out.write(varint, 0, n);
    }

    /** Rebuilds the written nodes over the entries read before; checks depth, sizes and separators. */
    private static final class ShapeReader {
        final DataInputStream in;
        final java.util.List<byte[]> keys;
        final java.util.List<byte[]> values;
        final int order;
        int next;
        int height = -1;

        ShapeReader(DataInputStream in, java.util.List<byte[]> keys, java.util.List<byte[]> values, int order) {
            this.in = in;
            this.keys = keys;
            this.values = values;
            this.order = order;
        }

        Node node(int depth) throws IOException {
            if (depth > 64) throw new IOException("corrupt B+-tree snapshot: shape deeper than 64 levels");
            int kind = in.readUnsignedByte();
            if (kind == 0) {
                int n = readBytesLength();
                if (n > order - 1 || n > keys.size() - next) throw new IOException("corrupt B+-tree snapshot: leaf of " + n + " entries");
                if (height == -1) height = depth + 1;
                else if (height != depth + 1) throw new IOException("corrupt B+-tree snapshot: leaves at different depths");
                byte[][] k = keys.subList(next, next + n).toArray(new byte[0][]);
                byte[][] v = values.subList(next, next + n).toArray(new byte[0][]);
                next += n;
                return n == 0 ? Node.Leaf.EMPTY : new Node.Leaf(k, v);
            }
            if (kind != 1) throw new IOException("corrupt B+-tree snapshot: node kind " + kind);
            int children = readBytesLength();
            if (children < 2 || children > order) throw new IOException("corrupt B+-tree snapshot: internal node of " + children + " children");
            byte[][] separators = new byte[children - 1][];
            for (int i = 0; i < separators.length; i++) separators[i] = readBytes(in);
            Node[] nodes = new Node[children];
            for (int i = 0; i < children; i++) {
                int first = next;
                nodes[i] = node(depth + 1);
                // every key of child i lies in [separators[i-1], separators[i])
                if (next > first) {
                    if (i > 0 && Node.compare(keys.get(first), separators[i - 1]) < 0) throw new IOException("corrupt B+-tree snapshot: separator above its right child");
                    if (i < separators.length && Node.compare(keys.get(next - 1), separators[i]) >= 0) throw new IOException("corrupt B+-tree snapshot: separator below its left child");
                }
            }
            return new Node.Internal(separators, nodes);
        }

        private int readBytesLength() throws IOException {
            int length = 0;
            for (int shift = 0; ; shift += 7) {
                if (shift > 28) throw new IOException("corrupt B+-tree snapshot: varint longer than 5 bytes");
                int b = in.readUnsignedByte();
                length |= (b & 0x7F) << shift;
                if ((b & 0x80) == 0) break;
            }
            if (length < 0) throw new IOException("corrupt B+-tree snapshot: negative length");
            return length;
        }
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
