package io.tandem.kv.btree;

/**
 * The shape of one tree version, for capacity planning and tests.
 *
 * @param height        levels including the leaves (1 for a tree that is a single leaf)
 * @param leaves        leaf nodes
 * @param internalNodes internal nodes
 * @param entries       key-value pairs
 * @param keyBytes      sum of key lengths
 * @param valueBytes    sum of value lengths
 * @param leafFill      average leaf occupancy, entries / (leaves * maximum entries per leaf)
 */
public record TreeStats(int height, long leaves, long internalNodes, long entries, long keyBytes, long valueBytes,
                        double leafFill) {}
