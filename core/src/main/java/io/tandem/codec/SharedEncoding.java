package io.tandem.codec;

/**
 * A message whose content never changes once it is built (no field, array or list of it is changed after it is
 * sent), so that its encoding may be shared: a transport handed the same instance for several peers in a row
 * encodes it once. A leader that sends one AppendEntries or Accept to each follower builds it once and pays one
 * encoding per batch instead of one per follower (issue 25).
 */
public interface SharedEncoding {}
