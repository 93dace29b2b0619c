package io.tandem.jmh.transport;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.transport.Endpoint;
import io.tandem.transport.TransportListener;
import io.tandem.transport.TransportSetup;
import io.tandem.transport.tcp.IoMode;
import io.tandem.transport.tcp.TcpTransport;
import io.tandem.transport.tcp.TcpTransportConfig;
import io.tandem.transport.tcp.tls.DevCertificates;
import io.tandem.transport.tcp.tls.TlsConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The Tandem TCP transport on loopback, two transports in one JVM with one I/O thread each:
 * {@code oneWay} is the delivered message rate (sender limited to {@link Loopback#WINDOW} messages
 * in flight), {@code roundTrip} the time for a message to go out and its echo to come back (the
 * receiver's listener sends it back from its I/O thread). Compare with {@link NettyEchoBenchmark},
 * the same traffic on plain Netty without the Tandem codec, framing and queues.
 *
 * <p>{@code tls=true} runs both transports with mutual TLS (a development CA made in a temporary
 * directory; the provider is {@code TlsMaterial.PROVIDER}, chosen with {@code -Dtandem.tls.provider}):
 * the difference to {@code tls=false} is what one TLS record costs per hop, without the cluster around it.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-Dio.netty.leakDetection.level=disabled", "--enable-native-access=ALL-UNNAMED"})
public class TcpTransportBenchmark {
    private static final NodeId SENDER = NodeId.of("n1");
    private static final NodeId RECEIVER = NodeId.of("n2");

    @Param({"64", "1024"})
    int payloadBytes;

    @Param({"AUTO"})
    String ioMode;

    @Param({"false"})
    boolean tls;

    /** The temporary directory of the TLS files, or null. */
    private Path certificates;
    private TcpTransport sender;
    private TcpTransport receiver;
    private byte[] payload;
    private long sent;
    private final AtomicLong delivered = new AtomicLong();
    private volatile long echoed;

    @Setup(Level.Trial)
    public void start() {
        payload = new byte[payloadBytes];
        KryoCodec codec = BenchMessage.codec();
        Map<NodeId, Endpoint> members = Map.of(
                SENDER, new Endpoint("127.0.0.1", Loopback.freePort()),
                RECEIVER, new Endpoint("127.0.0.1", Loopback.freePort()));
        TcpTransportConfig config = TcpTransportConfig.defaults().withIoThreads(1).withIoMode(IoMode.valueOf(ioMode));
        TcpTransportConfig senderConfig = config;
        TcpTransportConfig receiverConfig = config;
        if (tls) {
            certificates = developmentCertificates();
            Path dir = certificates;
            senderConfig = config.withTls(TlsConfig.fromDirectory(dir, SENDER.value()));
            receiverConfig = config.withTls(TlsConfig.fromDirectory(dir, RECEIVER.value()));
        }
        sender = new TcpTransport(new TransportSetup("bench", SENDER, members, codec, new SimpleMeterRegistry()), senderConfig);
        receiver = new TcpTransport(new TransportSetup("bench", RECEIVER, members, codec, new SimpleMeterRegistry()), receiverConfig);
        receiver.start(new TransportListener() {
            @Override
            public void onMessage(NodeId from, ProtocolMessage message) {
                BenchMessage m = (BenchMessage) message;
                if (m.echo()) receiver.send(from, m);
                else delivered.incrementAndGet();
            }
        });
        sender.start((from, message) -> echoed = message.requestId());
        Loopback.awaitSetup("the transports to connect", 30, () -> sender.isConnected(RECEIVER) && receiver.isConnected(SENDER));
        System.out.println("# Tandem TCP transport io mode: " + sender.ioMode() + (tls ? ", mutual TLS" : ", plaintext"));
    }

    /** A CA and a certificate for each of the two members, in the layout {@link TlsConfig#fromDirectory} reads. */
    private static Path developmentCertificates() {
        try {
            Path dir = Files.createTempDirectory("tandem-jmh-tls");
            DevCertificates.Issued ca = DevCertificates.newCa("jmh CA", Duration.ofDays(1));
            DevCertificates.writeCertificates(dir.resolve("ca.pem"), ca.certificate());
            for (NodeId id : new NodeId[] {SENDER, RECEIVER}) {
                DevCertificates.Issued m = DevCertificates.issueMember(ca, id, Duration.ofDays(1));
                DevCertificates.writeCertificates(dir.resolve(id.value() + ".pem"), m.certificate(), ca.certificate());
                DevCertificates.writeKey(dir.resolve(id.value() + "-key.pem"), m.key());
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        sender.close();
        receiver.close();
        if (certificates != null) {
            try (var files = Files.list(certificates)) {
                for (Path f : files.toList()) Files.delete(f);
                Files.delete(certificates);
            } catch (IOException e) {
                System.out.println("# cannot remove " + certificates + ": " + e);
            }
        }
        if (sender.stats().droppedSends() > 0) throw new IllegalStateException("the benchmark dropped sends: " + sender.stats());
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public void oneWay() {
        long seq = ++sent;
        Loopback.spinUntil(() -> seq - delivered.get() <= Loopback.WINDOW);
        if (!sender.send(RECEIVER, new BenchMessage(seq, false, payload))) throw new IllegalStateException("send dropped: " + sender.stats());
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long roundTrip() {
        long seq = ++sent;
        if (!sender.send(RECEIVER, new BenchMessage(seq, true, payload))) throw new IllegalStateException("send dropped: " + sender.stats());
        Loopback.spinUntil(() -> echoed == seq);
        return seq;
    }
}
