package io.tandem.kv.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The Prometheus scrape endpoint: {@code GET /metrics} answers with the registry in the Prometheus
 * text format. Served by the JDK's HTTP server on one daemon thread: scrapes are rare and small.
 */
final class MetricsEndpoint implements AutoCloseable {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(MetricsEndpoint.class);
    private final HttpServer http;
    private final ExecutorService executor;

    private MetricsEndpoint(HttpServer http, ExecutorService executor) {
        this.http = http;
        this.executor = executor;
    }

    /** Binds {@code host:port} and starts serving; throws {@link IllegalStateException} naming the address if it cannot. */
    static MetricsEndpoint start(String host, int port, PrometheusMeterRegistry registry) {
        HttpServer http;
        try {
            http = HttpServer.create(new InetSocketAddress(host, port), 16);
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
        return new MetricsEndpoint(http, executor);
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
