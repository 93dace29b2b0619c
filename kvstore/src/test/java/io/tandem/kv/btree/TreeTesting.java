package io.tandem.kv.btree;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;

/** Shared helpers: the TreeMap model with the tree's order, key pools, and content comparison. */
final class TreeTesting {
    private TreeTesting() {}

    static TreeMap<byte[], byte[]> newModel() {
        return new TreeMap<>(Arrays::compareUnsigned);
    }

    /**
     * {@code count} distinct keys of 0 to 4 bytes drawn from bytes that sit on both sides of the
     * signed/unsigned boundary, including the empty key and keys that are prefixes of others.
     */
    static List<byte[]> keyPool(Random random, int count) {
        byte[] alphabet = {0x00, 0x01, 0x41, 0x7F, (byte) 0x80, (byte) 0x81, (byte) 0xFE, (byte) 0xFF};
        TreeMap<byte[], Boolean> keys = new TreeMap<>(Arrays::compareUnsigned);
        keys.put(new byte[0], true);
        while (keys.size() < count) {
            byte[] key = new byte[1 + random.nextInt(4)];
            for (int i = 0; i < key.length; i++) key[i] = alphabet[random.nextInt(alphabet.length)];
            keys.put(key, true);
        }
        List<byte[]> pool = new ArrayList<>(keys.keySet());
        java.util.Collections.shuffle(pool, random);
        return pool;
    }

    static byte[] value(long n) {
        return ("v" + n).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    static List<Entry> entries(NavigableMap<byte[], byte[]> map) {
        List<Entry> list = new ArrayList<>(map.size());
        for (Map.Entry<byte[], byte[]> e : map.entrySet()) list.add(new Entry(e.getKey(), e.getValue()));
        return list;
    }

    static List<Entry> entries(TreeSnapshot snapshot) {
        List<Entry> list = new ArrayList<>(snapshot.size());
        snapshot.forEach(null, null, (k, v) -> list.add(new Entry(k, v)));
        return list;
    }

    static void assertSameContent(TreeSnapshot snapshot, NavigableMap<byte[], byte[]> model) {
        assertThat(snapshot.size()).isEqualTo(model.size());
        assertThat(entries(snapshot)).containsExactlyElementsOf(entries(model));
    }

    static NavigableMap<byte[], byte[]> range(NavigableMap<byte[], byte[]> model, byte[] from, byte[] to) {
        if (from != null && to != null) {
            return Arrays.compareUnsigned(from, to) >= 0 ? newModel() : model.subMap(from, true, to, false);
        }
        if (from != null) return model.tailMap(from, true);
        if (to != null) return model.headMap(to, false);
        return model;
    }
}
