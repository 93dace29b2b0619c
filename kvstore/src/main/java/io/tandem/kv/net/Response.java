package io.tandem.kv.net;

import java.util.Objects;

/** The server's answer to one {@link Request}, carrying the same request id. */
public sealed interface Response {
    long requestId();

    /** The outcome of a command or query: a {@link io.tandem.kv.KvResult} in {@code KvCodec} bytes. */
    record Result(long requestId, byte[] result) implements Response {
        public Result {
            Objects.requireNonNull(result, "result");
        }
    }

    /** The answer to {@link Request.Status}. */
    record StatusReport(long requestId, NodeStatus status) implements Response {
        public StatusReport {
            Objects.requireNonNull(status, "status");
        }
    }

    /** An admin request took effect. */
    record Done(long requestId) implements Response {}

    /**
     * The request was not answered with a result.
     *
     * @param leader              for {@link ErrorCode#NOT_LEADER}: the node believed to lead, or null
     * @param leaderClientAddress where that leader takes client connections ({@code host:port}), or null
     */
    record Error(long requestId, ErrorCode code, String message, String leader, String leaderClientAddress) implements Response {
        public Error {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(message, "message");
        }

        public Error(long requestId, ErrorCode code, String message) {
            this(requestId, code, message, null, null);
        }
    }
}
