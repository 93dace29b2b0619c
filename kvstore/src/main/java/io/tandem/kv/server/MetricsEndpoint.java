package io.tandem.kv.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The Prometheus scrape endpoint: {@code GET /metrics} answers with the registry in the Prometheus
 * text format. Served by the JDK's HTTP server on one daemon thread: scrapes are rare and small. On a
 * cluster with TLS it is HTTPS with the member's certificate and needs the read role (see {@link Access}).
 */
final class MetricsEndpoint implements AutoCloseable {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(MetricsEndpoint.class);
    private final HttpServer http;
    private final ExecutorService executor;
    /** The TLS context new HTTPS connections use, or null over plain HTTP. */
    private final Swappable tls;

    private MetricsEndpoint(HttpServer http, ExecutorService executor, Swappable tls) {
        this.http = http;
        this.executor = executor;
        this.tls = tls;
    }

    /**
     * Who may scrape. With authentication on, a scrape needs the {@link Role#READ} role: from a client
     * certificate presented on the HTTPS connection, or from {@code Authorization: Bearer <token>} with
     * a client token that has it; anonymous scrapes are allowed only if the anonymous roles include it.
     */
    interface Access {
        /** True if a scrape with this verified client certificate (or null) and this Authorization header (or null) may read. */
        boolean mayRead(X509Certificate clientCertificate, String authorization);

        /** Everyone may scrape (a plaintext cluster, or anonymous clients with the read role). */
        Access OPEN = (cert, authorization) -> true;
    }

    /** Binds {@code host:port} over plain HTTP, open to everyone (a plaintext cluster). */
    static MetricsEndpoint start(String host, int port, PrometheusMeterRegistry registry) {
        return start(host, port, registry, null, Access.OPEN);
    }

    /**
     * Binds {@code host:port} and starts serving: over HTTPS with {@code tls} (the member's certificate;
     * a client certificate is asked for, not required), over HTTP if it is null; each scrape checked
     * by {@code access}. Throws {@link ServerStartException} naming the address if it cannot bind.
     */
    static MetricsEndpoint start(String host, int port, PrometheusMeterRegistry registry, SSLContext initialTls, Access access) {
        HttpServer http;
        Swappable swappable = initialTls == null ? null : new Swappable(initialTls);
        SSLContext tls = swappable == null ? null : swappable.context;
        try {
            if (tls == null) {
                http = HttpServer.create(new InetSocketAddress(host, port), 16);
            } else {
                HttpsServer https = HttpsServer.create(new InetSocketAddress(host, port), 16);
                https.setHttpsConfigurator(new HttpsConfigurator(tls) {
                    @Override
                    public void configure(HttpsParameters params) {
                        SSLParameters p = tls.getDefaultSSLParameters();
                        p.setProtocols(new String[] {"TLSv1.3"});
                        p.setWantClientAuth(true);
                        params.setSSLParameters(p);
                    }
                });
                http = https;
            }
        } catch (IOException e) {
            throw new ServerStartException("cannot serve metrics on " + host + ":" + port + ": "
                    + (e instanceof java.net.BindException ? "the address is already in use" : e.getMessage()), e);
        }
        http.createContext("/metrics", exchange -> {
            try (exchange) {
                if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                    send(exchange, 405, "text/plain", "only GET\n");
                    return;
                }
                if (!access.mayRead(clientCertificate(exchange), exchange.getRequestHeaders().getFirst("Authorization"))) {
                    exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"tandem\"");
                    send(exchange, 401, "text/plain", "metrics need the read role: a client certificate or a bearer token that has it\n");
                    return;
                }
                String body;
                try {
                    body = registry.scrape();
                } catch (RuntimeException e) {
                    log.warn("metrics scrape failed", e);
                    send(exchange, 500, "text/plain", "scrape failed: " + e + "\n");
                    return;
                }
                send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", body);
            }
        });
        http.createContext("/", exchange -> {
            try (exchange) {
                send(exchange, 404, "text/plain", "Tandem KV server: metrics are at /metrics\n");
            }
        });
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().name("tandem-metrics-http").daemon(true).unstarted(r));
        http.setExecutor(executor);
        http.start();
        return new MetricsEndpoint(http, executor, swappable);
    }

    /**
     * Serves new HTTPS connections with {@code fresh} (a renewed certificate, new trust roots); open
     * connections keep what they negotiated, as on the member and client ports.
     *
     * @throws IllegalStateException if the endpoint serves plain HTTP
     */
    void reloadTls(SSLContext fresh) {
        if (tls == null) throw new IllegalStateException("the metrics endpoint serves plain HTTP: no TLS to reload");
        tls.current = java.util.Objects.requireNonNull(fresh, "fresh");
    }

    /**
     * The JDK's HTTPS server takes one {@link SSLContext} for its lifetime and creates every
     * connection's engine from it, so a reload swaps what this one context delegates to: each new
     * connection reads the volatile field once, in {@code createSSLEngine}, and gets the whole old or
     * the whole new key material, never a mix.
     */
    private static final class Swappable extends javax.net.ssl.SSLContextSpi {
        volatile SSLContext current;
        final SSLContext context;

        Swappable(SSLContext initial) {
            this.current = initial;
            this.context = new SSLContext(this, initial.getProvider(), initial.getProtocol()) {};
        }

        @Override
        protected void engineInit(javax.net.ssl.KeyManager[] km, javax.net.ssl.TrustManager[] tm, java.security.SecureRandom random) {
            throw new UnsupportedOperationException("initialized from the member's TLS files; reload them instead");
        }

        @Override
        protected javax.net.ssl.SSLSocketFactory engineGetSocketFactory() {
            return current.getSocketFactory();
        }

        @Override
        protected javax.net.ssl.SSLServerSocketFactory engineGetServerSocketFactory() {
            return current.getServerSocketFactory();
        }

        @Override
        protected javax.net.ssl.SSLEngine engineCreateSSLEngine() {
            return current.createSSLEngine();
        }

        @Override
        protected javax.net.ssl.SSLEngine engineCreateSSLEngine(String host, int port) {
            return current.createSSLEngine(host, port);
        }

        @Override
        protected javax.net.ssl.SSLSessionContext engineGetServerSessionContext() {
            return current.getServerSessionContext();
        }

        @Override
        protected javax.net.ssl.SSLSessionContext engineGetClientSessionContext() {
            return current.getClientSessionContext();
        }

        @Override
        protected SSLParameters engineGetDefaultSSLParameters() {
            return current.getDefaultSSLParameters();
        }

        @Override
        protected SSLParameters engineGetSupportedSSLParameters() {
            return current.getSupportedSSLParameters();
        }
    }

    private static X509Certificate clientCertificate(HttpExchange exchange) {
        if (!(exchange instanceof HttpsExchange https)) return null;
        try {
            var certs = https.getSSLSession().getPeerCertificates();
            return certs.length > 0 && certs[0] instanceof X509Certificate x ? x : null;
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }

    int port() {
        return http.getAddress().getPort();
    }

    private static void send(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
    }
}
