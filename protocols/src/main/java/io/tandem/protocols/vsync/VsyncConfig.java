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
 * @param maxSmcPayloadBytes Derecho's {@code max_smc_payload_size} (derecho.md §3.4): a payload of at most
 *                          this many bytes travels in its SMC ring slot; 0 means the whole slot
 *                          ({@code slotBytes} − {@link #SLOT_HEADER}); more than the slot holds is refused
 * @param maxLargePayloadBytes Derecho's {@code max_payload_size}: a payload above the SMC threshold and up to
 *                          this many bytes is a large message, whose slot carries only the header while
 *                          the payload travels by RDMC in blocks (derecho.md §3.3); 0 turns large messages
 *                          off (a payload above the threshold is refused)
 * @param rdmcBlockBytes    bytes per RDMC block (the last block of a message may be shorter)
 */
public record VsyncConfig(int maxMembers, int window, int slotBytes, int maxQueuedSends, long heartbeatNanos, long suspicionNanos,
        long joinRetryNanos, long rejoinNanos, int stateChunkBytes, Delivery delivery, int maxSmcPayloadBytes, int maxLargePayloadBytes, int rdmcBlockBytes) {
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

    /** Default {@link #rdmcBlockBytes}: 1 MiB, the block of the paper's runs (derecho.md §3.3). */
    public static final int DEFAULT_RDMC_BLOCK = 1 << 20;
    /** Default {@link #maxLargePayloadBytes}: 64 MiB. */
    public static final int DEFAULT_MAX_LARGE_PAYLOAD = 64 << 20;

    public static final VsyncConfig DEFAULTS = new VsyncConfig(8, 16, 512, 1024, Duration.ofMillis(20).toNanos(), Duration.ofMillis(500).toNanos(),
            Duration.ofMillis(200).toNanos(), 0, 64 * 1024, Delivery.ORDERED, 0, DEFAULT_MAX_LARGE_PAYLOAD, DEFAULT_RDMC_BLOCK);

    /** The settings before large messages: SMC only, a payload larger than the slot is refused. */
    public VsyncConfig(int maxMembers, int window, int slotBytes, int maxQueuedSends, long heartbeatNanos, long suspicionNanos,
            long joinRetryNanos, long rejoinNanos, int stateChunkBytes, Delivery delivery) {
        this(maxMembers, window, slotBytes, maxQueuedSends, heartbeatNanos, suspicionNanos, joinRetryNanos, rejoinNanos, stateChunkBytes, delivery, 0, 0, DEFAULT_RDMC_BLOCK);
    }

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
        if (maxSmcPayloadBytes < 0 || maxSmcPayloadBytes > slotBytes - SLOT_HEADER) {
            throw new IllegalArgumentException("maxSmcPayloadBytes must be in [0, " + (slotBytes - SLOT_HEADER) + "] (0: the whole slot; a slot of " + slotBytes
                    + " bytes holds a " + SLOT_HEADER + "-byte header and " + (slotBytes - SLOT_HEADER) + " bytes of payload), was " + maxSmcPayloadBytes);
        }
        int smc = maxSmcPayloadBytes == 0 ? slotBytes - SLOT_HEADER : maxSmcPayloadBytes;
        if (maxLargePayloadBytes != 0 && maxLargePayloadBytes <= smc) {
            throw new IllegalArgumentException("maxLargePayloadBytes must exceed the SMC threshold of " + smc + " bytes (a large message is one above it), or be 0 to turn large messages off, was "
                    + maxLargePayloadBytes);
        }
        if (maxLargePayloadBytes < 0) throw new IllegalArgumentException("maxLargePayloadBytes must be >= 0, was " + maxLargePayloadBytes);
        if (rdmcBlockBytes < 1) throw new IllegalArgumentException("rdmcBlockBytes must be >= 1, was " + rdmcBlockBytes);
        if (maxLargePayloadBytes > 0 && (long) maxLargePayloadBytes / rdmcBlockBytes >= 1 << 20) {
            throw new IllegalArgumentException("a large message of " + maxLargePayloadBytes + " bytes in blocks of " + rdmcBlockBytes + " would have over 2^20 blocks: raise rdmcBlockBytes");
        }
    }

    /** The largest payload one message may carry: the large-message limit, or the SMC threshold if large messages are off. */
    public int maxPayloadBytes() {
        return Math.max(smcPayloadBytes(), maxLargePayloadBytes);
    }

    /** The SMC threshold: a payload of at most this many bytes goes in its ring slot, a larger one by RDMC (derecho.md §3.4). */
    public int smcPayloadBytes() {
        return maxSmcPayloadBytes == 0 ? slotBytes - SLOT_HEADER : maxSmcPayloadBytes;
    }

    /** Whether {@code payloadBytes} makes a large message (slot with the header only, payload by RDMC). */
    public boolean isLarge(int payloadBytes) {
        return payloadBytes > smcPayloadBytes();
    }

    /**
     * Large messages: a payload above {@code maxSmcPayloadBytes} (0: the whole slot) and up to
     * {@code maxLargePayloadBytes} (0: off) goes by RDMC in blocks of {@code rdmcBlockBytes}.
     */
    public VsyncConfig withLargeMessages(int maxSmcPayloadBytes, int maxLargePayloadBytes, int rdmcBlockBytes) {
        return new VsyncConfig(maxMembers, window, slotBytes, maxQueuedSends, heartbeatNanos, suspicionNanos, joinRetryNanos, rejoinNanos, stateChunkBytes, delivery,
                maxSmcPayloadBytes, maxLargePayloadBytes, rdmcBlockBytes);
    }

    public VsyncConfig withTimers(Duration heartbeat, Duration suspicion, Duration joinRetry, Duration rejoin) {
        return new VsyncConfig(maxMembers, window, slotBytes, maxQueuedSends, heartbeat.toNanos(), suspicion.toNanos(), joinRetry.toNanos(), rejoin.toNanos(),
                stateChunkBytes, delivery, maxSmcPayloadBytes, maxLargePayloadBytes, rdmcBlockBytes);
    }

    public VsyncConfig withWindow(int window, int slotBytes) {
        return new VsyncConfig(maxMembers, window, slotBytes, maxQueuedSends, heartbeatNanos, suspicionNanos, joinRetryNanos, rejoinNanos, stateChunkBytes, delivery, maxSmcPayloadBytes, maxLargePayloadBytes, rdmcBlockBytes);
    }

    public VsyncConfig withDelivery(Delivery delivery) {
        return new VsyncConfig(maxMembers, window, slotBytes, maxQueuedSends, heartbeatNanos, suspicionNanos, joinRetryNanos, rejoinNanos, stateChunkBytes, delivery, maxSmcPayloadBytes, maxLargePayloadBytes, rdmcBlockBytes);
    }

    public VsyncConfig withMaxQueuedSends(int maxQueuedSends) {
        return new VsyncConfig(maxMembers, window, slotBytes, maxQueuedSends, heartbeatNanos, suspicionNanos, joinRetryNanos, rejoinNanos, stateChunkBytes, delivery, maxSmcPayloadBytes, maxLargePayloadBytes, rdmcBlockBytes);
    }
}
