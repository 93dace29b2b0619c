package io.tandem.engine;

/**
 * A message between engines. Each protocol declares a sealed interface of records extending this
 * one and registers them with the codec; handlers dispatch with a pattern {@code switch}.
 *
 * <p>Every message names the client request that caused it (DESIGN §3, rule 4), or
 * {@link RequestIds#BACKGROUND} for traffic no client asked for (heartbeats, catch-up, resends), so
 * that background traffic can be measured separately.
 */
public interface ProtocolMessage {
    /** The id of the client request this message serves, or {@link RequestIds#BACKGROUND}. */
    long requestId();
}
