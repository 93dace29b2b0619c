package io.tandem.transport.tcp;

import java.util.concurrent.atomic.LongAdder;

/** vsync22's counting probe (reverted after the count): region pushes, frames per send and per read. */
public final class Probe {
    private Probe() {}

    public static final LongAdder REGION_PUSHES = new LongAdder();
    public static final LongAdder REGION_FRAMES = new LongAdder();
    public static final LongAdder LOOP_DRAINS = new LongAdder();
    public static final LongAdder LOOP_FRAMES = new LongAdder();
    public static final LongAdder DIRECT_SENDS = new LongAdder();
    public static final LongAdder DIRECT_FRAMES = new LongAdder();
    public static final LongAdder READS = new LongAdder();
    public static final LongAdder FRAMES_IN = new LongAdder();
    public static final LongAdder MESSAGE_FRAMES_OUT = new LongAdder();
}
