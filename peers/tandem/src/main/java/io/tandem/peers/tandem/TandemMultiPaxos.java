package io.tandem.peers.tandem;

import io.tandem.kv.net.NodeStatus;
import io.tandem.peers.driver.Role;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code tandem-multipaxos}: the KV server with the MultiPaxos engine ({@code multipaxos}, classic deployment). */
public final class TandemMultiPaxos extends TandemSystem {
    /**
     * The proposer's part of the engine's one-line state ({@code "r0 | leader LEADING ballot=... hint=r0 ..."}).
     * The KV server reports a role field for Raft only; for other engines its status carries this line, refreshed
     * at most every 250 ms, which is fine for a role polled every 100 ms by a harness that waits for leadership.
     */
    private static final Pattern PROPOSER = Pattern.compile("\\bleader (FOLLOWER|PREPARING|LEADING)\\b.*?\\bhint=(\\S+)");

    public TandemMultiPaxos() {
        super("tandem-multipaxos", "multipaxos");
    }

    /** LEADING is the active leader; a follower that knows a leader follows it; one preparing or knowing none is between. */
    @Override
    Role roleOf(NodeStatus status) {
        Matcher m = PROPOSER.matcher(status.detail());
        if (!m.find()) return Role.OTHER;
        return switch (m.group(1)) {
            case "LEADING" -> Role.LEADER;
            case "FOLLOWER" -> m.group(2).equals("null") ? Role.OTHER : Role.FOLLOWER;
            default -> Role.OTHER;
        };
    }
}
