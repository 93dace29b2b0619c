package io.tandem.peers.driver.testing;

import io.tandem.peers.driver.ClusterLayout;
import io.tandem.peers.driver.PeerClient;
import io.tandem.peers.driver.PeerSystem;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/**
 * What every adapter's system test needs to run a real cluster of its system in one JVM: a free block of
 * loopback ports, a condition awaited with a deadline, and puts that are all eventually acknowledged.
 * Test code only (the driver's test-jar).
 */
public final class PeerTestClusters {
    /** Which kind of socket a system binds on its ports. */
    public enum Sockets { TCP, UDP }

    private PeerTestClusters() {}

    /** The adapter registered under {@code name} in {@code META-INF/services}, as the load driver finds it. */
    public static PeerSystem system(String name) {
        return ServiceLoader.load(PeerSystem.class).stream().map(ServiceLoader.Provider::get)
                .filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no PeerSystem named " + name + " on the class path"));
    }

    /**
     * A layout of {@code replicas} on 127.0.0.1 whose ports at {@code offsets} of every replica are free now.
     * The base lies below Linux's ephemeral range (32768-60999), where another process's outgoing connection
     * could take a port between this check and the replica's bind; every port the system binds is checked, not
     * only the first of each replica's block.
     */
    public static ClusterLayout freeLayout(int replicas, Sockets kind, int... offsets) {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = 20_000 + ThreadLocalRandom.current().nextInt(600) * ClusterLayout.PORTS_PER_REPLICA;
            ClusterLayout layout = new ClusterLayout("127.0.0.1", replicas, base);
            boolean free = true;
            for (int i = 0; i < replicas && free; i++) {
                for (int k = 0; k < offsets.length && free; k++) free = portFree(layout.port(i, offsets[k]), kind);
            }
            if (free) return layout;
        }
        throw new IllegalStateException("no free block of loopback ports in 50 attempts");
    }

    /** Every port of every replica's block ({@link ClusterLayout#PORTS_PER_REPLICA}) free, for TCP. */
    public static ClusterLayout freeLayout(int replicas) {
        int[] all = new int[ClusterLayout.PORTS_PER_REPLICA];
        for (int i = 0; i < all.length; i++) all[i] = i;
        return freeLayout(replicas, Sockets.TCP, all);
    }

    private static boolean portFree(int port, Sockets kind) {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try {
            if (kind == Sockets.UDP) {
                new DatagramSocket(port, loopback).close();
            } else {
                new ServerSocket(port, 1, loopback).close();
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits for {@code condition}, failing with {@code what} once {@code timeout} has passed. */
    public static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            TimeUnit.MILLISECONDS.sleep(20); // polling interval of a condition with a deadline, not a wait for an event
        }
    }

    /**
     * Puts {@code key.apply(i) -> value.apply(i)} for every i below {@code puts}, at most {@code window} in flight,
     * and puts again any that failed (the contract lets a put fail during a leader change, e.g. when a stalled
     * leader is replaced), until every one is acknowledged; fails once {@code timeout} has passed.
     */
    public static void putAll(PeerClient client, int puts, int window, IntFunction<byte[]> key, IntFunction<byte[]> value,
            Duration timeout) throws InterruptedException, java.util.concurrent.TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Integer> pending = new ArrayList<>();
        for (int i = 0; i < puts; i++) pending.add(i);
        while (!pending.isEmpty()) {
            if (System.nanoTime() > deadline) throw new AssertionError(pending.size() + " puts still not acknowledged after " + timeout);
            List<Integer> failed = new ArrayList<>();
            for (int from = 0; from < pending.size(); from += window) {
                Map<Integer, CompletableFuture<?>> inFlight = new LinkedHashMap<>();
                for (int i : pending.subList(from, Math.min(pending.size(), from + window))) inFlight.put(i, client.put(key.apply(i), value.apply(i)));
                for (Map.Entry<Integer, CompletableFuture<?>> e : inFlight.entrySet()) {
                    long left = Math.max(1, deadline - System.nanoTime());
                    try {
                        e.getValue().get(left, TimeUnit.NANOSECONDS);
                    } catch (ExecutionException refused) {
                        failed.add(e.getKey());
                    }
                }
            }
            pending = failed;
        }
    }
}
