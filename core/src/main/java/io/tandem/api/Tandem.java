package io.tandem.api;

/**
 * Entry point of the library.
 *
 * <pre>{@code
 * try (var node = Tandem.node()
 *         .id("n1").members("n1=127.0.0.1:7001", "n2=127.0.0.1:7002", "n3=127.0.0.1:7003")
 *         .protocol(protocol).transport(TcpTransport.defaults()).storage(storage)
 *         .stateMachine(new MyStateMachine())
 *         .start()) {
 *     byte[] result = node.submit(command).join();
 * }
 * }</pre>
 */
public final class Tandem {
    private Tandem() {}

    /** A builder for one member of a replicated state machine or a {@link Channel}. */
    public static NodeBuilder node() {
        return new NodeBuilder();
    }

    /** The same builder, named for channel users: finish with {@link NodeBuilder#connect(Receiver)}. */
    public static NodeBuilder channel() {
        return new NodeBuilder();
    }
}
