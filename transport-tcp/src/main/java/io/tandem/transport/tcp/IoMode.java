package io.tandem.transport.tcp;

/**
 * Which Netty I/O implementation a {@link TcpTransport} runs on. {@link #AUTO} picks the fastest
 * one this machine supports: io_uring, then epoll, then NIO. An explicit native mode that is not
 * available fails at construction, naming why, rather than silently running on something else.
 */
public enum IoMode {
    AUTO,
    IO_URING,
    EPOLL,
    NIO
}
