package io.tandem.peers.sofajraft;

import java.io.Serial;
import java.io.Serializable;

/**
 * The answer to a {@link PutRequest}: committed, or refused by a node that is not the leader (with the leader it
 * knows of, {@code ip:port}, if any), or failed with jraft's status message.
 */
public final class PutResponse implements Serializable {
    @Serial private static final long serialVersionUID = 1L;

    private boolean committed;
    private String redirect;
    private String error;

    public PutResponse() {
    }

    static PutResponse ok() {
        PutResponse response = new PutResponse();
        response.committed = true;
        return response;
    }

    static PutResponse notLeader(String leader) {
        PutResponse response = new PutResponse();
        response.redirect = leader;
        response.error = "not the leader";
        return response;
    }

    static PutResponse failed(String error) {
        PutResponse response = new PutResponse();
        response.error = error;
        return response;
    }

    boolean committed() {
        return committed;
    }

    /** The leader the answering node knows of ({@code ip:port}), or {@code null}. */
    String redirect() {
        return redirect;
    }

    String error() {
        return error;
    }

    /** True if the answering node was not the leader, so the put was not proposed and may be sent elsewhere. */
    boolean notLeader() {
        return !committed && "not the leader".equals(error);
    }
}
