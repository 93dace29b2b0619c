package io.tandem.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns Netty's leak reports into test failures. Netty only logs a leaked buffer (when the
 * garbage collector finds it unreleased), which a passing test run would hide; this factory,
 * installed before any buffer class loads ({@link LeakRecordingSessionListener}), records every
 * report so {@link NettyLeakCheck} can fail the test class. Tests run with
 * {@code -Dio.netty.leakDetection.level=paranoid}, so every buffer is tracked.
 */
final class LeakRecorder {
    private static final List<String> leaks = new ArrayList<>();
    private static volatile boolean installedForByteBuf;

    private LeakRecorder() {}

    static void install() {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval, long maxActive) {
                if (resource == ByteBuf.class) installedForByteBuf = true;
                return new RecordingDetector<>(resource, samplingInterval);
            }
        });
    }

    /** Whether Netty's buffer leak detector is ours (allocating first, so Netty has created it). */
    static boolean installedForByteBuf() {
        PooledByteBufAllocator.DEFAULT.directBuffer(1).release();
        return installedForByteBuf;
    }

    /**
     * Lets the collector find unreleased buffers, makes Netty report them, and returns (and
     * forgets) the reports. Waits on phantom-reference canaries rather than on time: after the
     * second canary is enqueued, every reference the first collection cleared has been enqueued.
     */
    static List<String> collectLeaks() throws InterruptedException {
        for (int round = 0; round < 2; round++) {
            ReferenceQueue<Object> queue = new ReferenceQueue<>();
            PhantomReference<Object> canary = new PhantomReference<>(new Object(), queue);
            System.gc();
            if (queue.remove(10_000) == null) throw new IllegalStateException("the garbage collector did not clear a canary within 10 s");
            Reference.reachabilityFence(canary);
        }
        // With paranoid detection, every tracked allocation first drains the detector's queue.
        for (ByteBufAllocator alloc : List.of(PooledByteBufAllocator.DEFAULT, UnpooledByteBufAllocator.DEFAULT)) {
            alloc.directBuffer(1).release();
            alloc.heapBuffer(1).release();
        }
        synchronized (leaks) {
            List<String> found = List.copyOf(leaks);
            leaks.clear();
            return found;
        }
    }

    private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
        RecordingDetector(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        protected boolean needReport() {
            return true;
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            record(resourceType + " leaked:" + records);
            super.reportTracedLeak(resourceType, records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            record(resourceType + " leaked (no access records)");
            super.reportUntracedLeak(resourceType);
        }

        private static void record(String report) {
            synchronized (leaks) {
                leaks.add(report);
            }
        }
    }
}
