package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a log continues after a snapshot or compaction: the index and term of the last removed
 * entry and the configuration in effect there. Stored in the meta store before the log is
 * compacted or a received snapshot installed, so a restart can always rebuild the log view.
 */
record BaseRecord(long index, long term, Configuration configuration) {
    static byte[] encodeAll(List<BaseRecord> records) {
        int size = 4;
        for (BaseRecord r : records) size += 16 + nodesSize(r.configuration.voters()) + nodesSize(r.configuration.learners());
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putInt(records.size());
        for (BaseRecord r : records) {
            out.putLong(r.index).putLong(r.term);
            putNodes(out, r.configuration.voters());
            putNodes(out, r.configuration.learners());
        }
        return out.array();
    }

    static List<BaseRecord> decodeAll(byte[] data) {
        List<BaseRecord> records = new ArrayList<>();
        if (data == null) return records;
        ByteBuffer in = ByteBuffer.wrap(data);
        int n = in.getInt();
        for (int i = 0; i < n; i++) {
            long index = in.getLong();
            long term = in.getLong();
            records.add(new BaseRecord(index, term, new Configuration(getNodes(in), getNodes(in))));
        }
        return records;
    }

    private static int nodesSize(List<NodeId> nodes) {
        int size = 2;
        for (NodeId n : nodes) size += 2 + n.value().length();
        return size;
    }

    private static void putNodes(ByteBuffer out, List<NodeId> nodes) {
        out.putShort((short) nodes.size());
        for (NodeId n : nodes) {
            byte[] name = n.value().getBytes(StandardCharsets.US_ASCII);
            out.putShort((short) name.length).put(name);
        }
    }

    private static List<NodeId> getNodes(ByteBuffer in) {
        int n = in.getShort();
        List<NodeId> nodes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] name = new byte[in.getShort()];
            in.get(name);
            nodes.add(NodeId.of(new String(name, StandardCharsets.US_ASCII)));
        }
        return nodes;
    }
}
