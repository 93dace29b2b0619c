package io.tandem.protocols.vsync;

import java.time.Duration;

/**
 * Settings of the virtual-synchrony engine (derecho.md §1.8, Appendix B), validated.
 *
 * @param maxMembers        the largest view; sizes the SST row (one received counter and one trim
 *                          value per possible sender); at most 64 (suspicions are one bit per rank)
 * @param window            SMC ring slots per sender, which is also the send window W (derecho.md §3.6)
 * @param slotBytes         bytes per ring slot, a 48-byte header included; a larger message is refused
 * @param maxQueuedSends    requests waiting for a window slot on this member; more are refused as overloaded (back-pressure)
 * @param heartbeatNanos    period of the failure detector's push with completion (derecho.md §5.1)
 * @param suspicionNanos    a member whose heartbeat word has not moved for this long is suspected
 * @param joinRetryNanos    how often a joiner repeats its join request, and a state transfer restarts
 * @param rejoinNanos       after shutting itself down (minority side, or removed while alive) the
 *                          process starts again as a joiner after this long; 0 never (a supervisor restarts it)
 * @param stateChunkBytes   bytes per state-transfer message
 * @param delivery          {@link Delivery#ORDERED} (total order, after stability) or {@link Delivery#RAW}
 */
public record VsyncConfig(int maxMembers, int window, int slotBytes, int maxQueuedSends, long heartbeatNanos, long suspicionNanos,
        long joinRetryNanos, long rejoinNanos, int stateChunkBytes, Delivery delivery) {
    /** How messages reach the receiver (derecho.md §1.5). */
    public enum Delivery {
        /** Round-robin total order, delivered once stable (received by every member). The state-machine mode. */
        ORDERED,
        /**
         * As soon as received, per-sender FIFO, no order across senders and no stability wait: members may
         * see different interleavings, so this mode is for streams, not for replicated state.
         */
        RAW
    }

    /** Header bytes of a slot: kind and length, sender index and view, request id, session (3 words). */
    public static final int SLOT_HEADER = 48;

    public static final VsyncConfig DEFAULTS = new VsyncConfig(8, 16, 512, 1024, Duration.ofMillis(20).toNanos(), Duration.ofMillis(500).toNanos(),
            Duration.ofMillis(200).toNanos(), 0, 64 * 1024, Delivery.ORDERED);

    public VsyncConfig {
        if (maxMembers < 1 || maxMembers > 64) throw new IllegalArgumentException("maxMembers must be in [1, 64], was " + maxMembers);
        if (window < 1) throw new IllegalArgumentException("window must be >= 1, was " + window);
        if (slotBytes < SLOT_HEADER + 8 || slotBytes % 8 != 0) throw new IllegalArgumentException("slotBytes must be a multiple of 8 and at least " + (SLOT_HEADER + 8) + ", was " + slotBytes);
        if (maxQueuedSends < 1) throw new IllegalArgumentException("maxQueuedSends must be >= 1, was " + maxQueuedSends);
        if (heartbeatNanos <= 0) throw new IllegalArgumentException("heartbeatNanos must be > 0");
        if (suspicionNanos <= 2 * heartbeatNanos) throw new IllegalArgumentException("suspicionNanos must exceed two heartbeats");
        if (joinRetryNanos <= 0) throw new IllegalArgumentException("joinRetryNanos must be > 0");
        if (rejoinNanos < 0) throw new IllegalArgumentException("rejoinNanos must be >= 0");
        if (stateChunkBytes < 1) throw new IllegalArgumentException("stateChunkBytes must be >= 1");
        if (delivery == null) throw new IllegalArgumentException("delivery must be given");
    }

    /** The largest payload one message may carry. */
    public int maxPayloadBytes() {
        return slotBytes - SLOT_HEADER;
    }

    public VsyncConfig withTimers(Duration heartbeat, Duration suspicion, Duration joinRetry, Duration rejoin) {
        return new VsyncConfig(maxMembers, window, slotBytes, maxQueuedSends, heartbeat.toNanos(), suspicion.toNanos(), joinRetry.toNanos(), rejoin.toNanos(),
                stateChunkBytes, delivery);
    }

    public VsyncConfig withWindow(int window, int slotBytes) {
        return new VsyncConfig(maxMembers, window, slotBytes, maxQueuedSends, heartbeatNanos, suspicionNanos, joinRetryNanos, rejoinNanos, stateChunkBytes, delivery);
    }

    public VsyncConfig withDelivery(Delivery delivery) {
        return new VsyncConfig(maxMembers, window, slotBytes, maxQueuedSends, heartbeatNanos, suspicionNanos, joinRetryNanos, rejoinNanos, stateChunkBytes, delivery);
    }

    public VsyncConfig withMaxQueuedSends(int maxQueuedSends) {
        return new VsyncConfig(maxMembers, window, slotBytes, maxQueuedSends, heartbeatNanos, suspicionNanos, joinRetryNanos, rejoinNanos, stateChunkBytes, delivery);
    }
}
