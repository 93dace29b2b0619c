package io.tandem.roles;

/** A deployment file or placement that cannot run: the message says where and why. */
public final class DeploymentException extends IllegalArgumentException {
    public DeploymentException(String message) {
        super(message);
    }
}
