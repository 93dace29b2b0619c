package io.tandem.kv.net;

/** The membership changes an admin request can ask the leader for (single-server, one at a time). */
public enum MembershipChange {
    /** Adds a non-voting member that starts receiving the log. */
    ADD_LEARNER(1),
    /** Makes a caught-up learner a voter. */
    PROMOTE(2),
    /** Removes a voter or learner. */
    REMOVE(3),
    /** Hands leadership to a caught-up voter. */
    TRANSFER_LEADERSHIP(4);

    private final int code;

    MembershipChange(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    static MembershipChange ofCode(int code) {
        for (MembershipChange c : values()) if (c.code == code) return c;
        throw new WireFormatException("unknown membership change " + code);
    }
}
