package io.tandem.kv.btree;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * One writer moves money between accounts in atomic groups of writes; empty accounts are deleted
 * and reappear, and filler keys come and go, so nodes split, borrow and merge all the time. Readers
 * on other threads must always see the total unchanged, whichever way they read a version: a full
 * visit, paged scans, point gets, and a structural check.
 */
class ConcurrentReadersTest {
    private static final int ACCOUNTS = 300;
    private static final long INITIAL_BALANCE = 100;
    private static final long TOTAL = ACCOUNTS * INITIAL_BALANCE;
    private static final int TRANSFERS = 40_000;
    private static final int READERS = 3;

    @Test
    void readersAlwaysSeeAConsistentVersion() throws Exception {
        BPlusTree tree = new BPlusTree(4);
        tree.atomically(w -> {
            for (int a = 0; a < ACCOUNTS; a++) w.put(account(a), balance(INITIAL_BALANCE));
        });
        AtomicBoolean writerDone = new AtomicBoolean();
        Queue<String> violations = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(READERS + 1);
        try {
            List<Future<Integer>> readers = new ArrayList<>();
            for (int r = 0; r < READERS; r++) {
                int reader = r;
                readers.add(pool.submit(() -> readUntil(tree, writerDone, violations, reader)));
            }
            Future<?> writer = pool.submit(() -> {
                try {
                    write(tree);
                } finally {
                    writerDone.set(true);
                }
            });
            writer.get(60, TimeUnit.SECONDS);
            int totalChecks = 0;
            for (Future<Integer> reader : readers) totalChecks += reader.get(60, TimeUnit.SECONDS);
            assertThat(violations).isEmpty();
            assertThat(totalChecks).isGreaterThanOrEqualTo(READERS);
            assertThat(sum(tree.snapshot())).isEqualTo(TOTAL);
            tree.snapshot().verifyStructure();
        } finally {
            pool.shutdownNow();
        }
    }

    private static void write(BPlusTree tree) {
        Random random = new Random(42);
        for (int t = 0; t < TRANSFERS; t++) {
            int from = random.nextInt(ACCOUNTS);
            int to = random.nextInt(ACCOUNTS);
            long amount = 1 + random.nextInt(60);
            tree.atomically(w -> {
                byte[] source = w.get(account(from));
                long available = source == null ? 0 : balanceOf(source);
                long moved = Math.min(available, amount);
                if (moved == 0 || from == to) return;
                if (available == moved) w.remove(account(from)); // empty accounts disappear
                else w.put(account(from), balance(available - moved));
                byte[] target = w.get(account(to));
                w.put(account(to), balance((target == null ? 0 : balanceOf(target)) + moved));
            });
            // Filler keys between the accounts force structural changes on their own.
            byte[] filler = ByteBuffer.allocate(5).put((byte) 'f').putInt(random.nextInt(400)).array();
            if (random.nextBoolean()) tree.put(filler, new byte[0]);
            else tree.remove(filler);
        }
    }

    private static int readUntil(BPlusTree tree, AtomicBoolean writerDone, Queue<String> violations, int reader) {
        int checks = 0;
        Random random = new Random(reader);
        do {
            TreeSnapshot version = tree.snapshot();
            long visited = sum(version);
            if (visited != TOTAL) violations.add("visit saw " + visited);

            int limit = 1 + random.nextInt(40);
            long paged = 0;
            ScanPage page = version.scan(new byte[] {'a'}, new byte[] {'b'}, limit);
            for (; ; page = version.scan(page.nextFrom(), new byte[] {'b'}, limit)) {
                for (Entry e : page.entries()) paged += balanceOf(e.value());
                if (!page.hasMore()) break;
            }
            if (paged != TOTAL) violations.add("paged scan saw " + paged);

            long pointed = 0;
            for (int a = 0; a < ACCOUNTS; a++) {
                byte[] value = version.get(account(a));
                if (value != null) pointed += balanceOf(value);
            }
            if (pointed != TOTAL) violations.add("gets saw " + pointed);

            if (checks % 16 == 0) {
                try {
                    version.verifyStructure();
                } catch (IllegalStateException e) {
                    violations.add(e.getMessage());
                }
            }
            checks++;
        } while (!writerDone.get() && violations.isEmpty());
        return checks;
    }

    private static long sum(TreeSnapshot version) {
        long[] total = {0};
        version.forEach(new byte[] {'a'}, new byte[] {'b'}, (k, v) -> {
            total[0] += balanceOf(v);
            return true;
        });
        return total[0];
    }

    private static byte[] account(int a) {
        return ByteBuffer.allocate(5).put((byte) 'a').putInt(a).array();
    }

    private static byte[] balance(long amount) {
        return ByteBuffer.allocate(8).putLong(amount).array();
    }

    private static long balanceOf(byte[] value) {
        return ByteBuffer.wrap(value).getLong();
    }
}
