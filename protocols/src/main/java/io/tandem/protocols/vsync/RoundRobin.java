package io.tandem.protocols.vsync;

/**
 * The arithmetic of Derecho's round-robin total order (derecho.md §3.5, §4.2, Appendix A.1 with the
 * erratum), in counts rather than indexes: with S senders, message k of sender s has position
 * {@code g = k·S + s}. Pure functions, tested against a brute-force oracle.
 */
final class RoundRobin {
    private RoundRobin() {}

    static long position(int senders, int sender, long index) {
        return index * senders + sender;
    }

    static int senderOf(int senders, long position) {
        return (int) (position % senders);
    }

    static long indexOf(int senders, long position) {
        return position / senders;
    }

    /**
     * How many positions of the order are held without a gap, given how many messages of each
     * sender are held ({@code received[s]}): the first missing one is sender s's message
     * {@code received[s]}, at position {@code received[s]·S + s}; the lowest of these is the count.
     */
    static long prefix(long[] received, int senders) {
        long min = Long.MAX_VALUE;
        for (int s = 0; s < senders; s++) min = Math.min(min, position(senders, s, received[s]));
        return min;
    }

    /**
     * How many messages sender {@code me} must have sent so that nobody waits for it (derecho.md
     * §3.5, null messages): a sender s above me that sent c messages needs my first c; one below me
     * needs my first c − 1 (its c-th message comes before my c-th).
     */
    static long owed(long[] received, int senders, int me) {
        long need = 0;
        for (int s = 0; s < senders; s++) {
            if (s == me) continue;
            need = Math.max(need, s > me ? received[s] : received[s] - 1);
        }
        return need;
    }
}
