package io.tandem.storage.file;

import static io.tandem.storage.stable.StableStorageContract.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.tandem.storage.FlushPolicy;
import io.tandem.storage.LogEntry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash-safety with real processes: a child JVM ({@link CrashChild}) appends through
 * {@link io.tandem.storage.NodeStorage} with fsync per batch and prints what became durable; the
 * test kills it with SIGKILL ({@link Process#destroyForcibly()}) at random points, then checks that
 * every acknowledged entry is present and intact and that the log continues cleanly after
 * recovery (the next child appends on top of it).
 */
class KillNineCrashTest {
    private static final int ROUNDS = 25;
    private static final long LINE_TIMEOUT_SECONDS = 30;

    @TempDir
    Path root;

    @Test
    void acknowledgedEntriesSurviveKillNineAtRandomPoints() throws Exception {
        killAtRandomPoints(FlushPolicy.FSYNC);
    }

    /**
     * Without fsync the log reaches the page cache through a mapping of its tail (raft19): a store into a shared
     * mapping must survive a kill -9 exactly as a {@code pwrite} does, and the zero-filled rest of the mapped window
     * must recover as a torn tail.
     */
    @Test
    void acknowledgedEntriesSurviveKillNineWithoutFsync() throws Exception {
        killAtRandomPoints(FlushPolicy.NO_FSYNC);
    }

    private void killAtRandomPoints(FlushPolicy policy) throws Exception {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        Path data = root.resolve("n1");
        long acknowledged = 0;
        long metaAcknowledged = 0;
        List<String> history = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            String context = policy + " round " + round + " (seed " + seed + ", history " + history + ")";
            Path stderr = root.resolve("child-" + round + ".err");
            Process child = startChild(data, stderr, policy);
            BlockingQueue<String> lines = readLines(child);
            try {
                String recovered = nextLine(lines, child, stderr);
                assertThat(recovered).as(context).startsWith("RECOVERED ");
                long recoveredLast = Long.parseLong(recovered.split(" ")[2]);
                assertThat(recoveredLast).as("%s: the child recovered every acknowledged entry", context).isGreaterThanOrEqualTo(acknowledged);
                // Kill after a random number of acknowledgements: the child is mid-append, mid-fsync or mid-compaction.
                int acksBeforeKill = 1 + random.nextInt(40);
                int acks = 0;
                while (acks < acksBeforeKill) {
                    String line = nextLine(lines, child, stderr);
                    if (line.startsWith("ACK ")) {
                        acknowledged = Math.max(acknowledged, Long.parseLong(line.substring(4)));
                        acks++;
                    } else if (line.startsWith("META ")) {
                        metaAcknowledged = Math.max(metaAcknowledged, Long.parseLong(line.substring(5)));
                    } else {
                        fail("%s: unexpected output from the child: %s", context, line);
                    }
                }
            } finally {
                child.destroyForcibly(); // SIGKILL on Linux
                assertThat(child.waitFor(LINE_TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
            }
            // Output the child printed before dying may still be buffered in the pipe: it was acknowledged too.
            for (String line; (line = lines.poll()) != null; ) {
                if (line.startsWith("ACK ")) acknowledged = Math.max(acknowledged, Long.parseLong(line.substring(4)));
                if (line.startsWith("META ")) metaAcknowledged = Math.max(metaAcknowledged, Long.parseLong(line.substring(5)));
            }
            history.add(acknowledged + "/" + metaAcknowledged);
            verify(data, acknowledged, metaAcknowledged, context);
        }
        System.out.printf("kill -9 test: %d rounds, %d entries acknowledged in total, acknowledged/meta per round: %s%n",
                ROUNDS, acknowledged, history);
    }

    private static void verify(Path data, long acknowledged, long metaAcknowledged, String context) {
        try (FileStorage storage = FileStorage.open(data, CrashChild.CLUSTER, CrashChild.NODE,
                io.tandem.storage.StorageOptions.of(FlushPolicy.FSYNC).withSegmentBytes(CrashChild.SEGMENT_BYTES))) {
            SegmentedLog log = storage.log();
            assertThat(log.lastIndex()).as("%s: every acknowledged entry is present", context).isGreaterThanOrEqualTo(acknowledged);
            assertThat(log.firstIndex()).as(context).isLessThanOrEqualTo(Math.max(1, acknowledged - 1000));
            long[] expected = {log.firstIndex()};
            log.forEach(log.firstIndex(), (LogEntry e) -> {
                long i = expected[0]++;
                assertThat(e.index()).as(context).isEqualTo(i);
                assertThat(e.term()).as("%s: term of %d", context, i).isEqualTo(CrashChild.termOf(i));
                assertThat(e.payload()).as("%s: payload of %d", context, i).isEqualTo(payload(i, CrashChild.termOf(i)));
            });
            assertThat(expected[0]).isEqualTo(log.lastIndex() + 1);
            long progress = storage.meta().get("progress").map(v -> Long.parseLong(new String(v, StandardCharsets.UTF_8))).orElse(0L);
            assertThat(progress).as("%s: the acknowledged meta record survived", context).isGreaterThanOrEqualTo(metaAcknowledged);
            // Durability follows call order: the meta record names an entry appended before it.
            assertThat(log.lastIndex()).as(context).isGreaterThanOrEqualTo(progress);
        }
    }

    private static Process startChild(Path data, Path stderr, FlushPolicy policy) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        return new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), CrashChild.class.getName(), data.toString(), policy.name())
                .redirectError(stderr.toFile())
                .start();
    }

    private static BlockingQueue<String> readLines(Process child) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) lines.add(line);
            } catch (IOException e) {
                // The child was killed: its pipe is gone.
            }
        }, "crash-child-reader");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    private static String nextLine(BlockingQueue<String> lines, Process child, Path stderr) throws InterruptedException, IOException {
        String line = lines.poll(LINE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (line == null) {
            String err = Files.exists(stderr) ? Files.readString(stderr) : "";
            fail("the child printed nothing for %d s (alive: %s); its stderr:%n%s", LINE_TIMEOUT_SECONDS, child.isAlive(), err);
        }
        return line;
    }
}
