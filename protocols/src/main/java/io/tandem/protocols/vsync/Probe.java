package io.tandem.protocols.vsync;

import java.util.concurrent.atomic.AtomicLong;

/** PROBE (to be reverted): counters of what ends a send pass and of deferred pushes, printed at exit. */
public final class Probe {
    public static final AtomicLong passes = new AtomicLong(), windowStops = new AtomicLong(), emptyStops = new AtomicLong(),
            largeStops = new AtomicLong(), slots = new AtomicLong(), nulls = new AtomicLong(), queuedAtStart = new AtomicLong(),
            windowStopsQueued = new AtomicLong(), flushDeferred = new AtomicLong(), flushPushed = new AtomicLong(),
            flushGuard = new AtomicLong(), receivedMsgs = new AtomicLong(), receivePasses = new AtomicLong(),
            delivered = new AtomicLong(), deliverPasses = new AtomicLong(), windowReads = new AtomicLong();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println(String.format(
                "# probe passes=%d slots=%d nulls=%d queuedAtStart=%d windowStops=%d windowStopsQueued=%d emptyStops=%d largeStops=%d windowReads=%d"
                        + " flushPushed=%d flushGuard=%d flushDeferred=%d receivePasses=%d received=%d deliverPasses=%d delivered=%d",
                passes.get(), slots.get(), nulls.get(), queuedAtStart.get(), windowStops.get(), windowStopsQueued.get(), emptyStops.get(),
                largeStops.get(), windowReads.get(), flushPushed.get(), flushGuard.get(), flushDeferred.get(), receivePasses.get(),
                receivedMsgs.get(), deliverPasses.get(), delivered.get()))));
    }

    private Probe() {}
}
