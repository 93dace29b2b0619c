package io.tandem.transport;

import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.PushCompletion;
import io.tandem.engine.Regions;
import io.tandem.runtime.TransportRegions;
import io.tandem.testing.Await;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

/**
 * A {@link RegionsContract.Fixture} over real transports (in-JVM or TCP): each node's regions are
 * the engine's view of its transport's ({@link TransportRegions}), completions arrive on transport
 * threads, and observers run on a thread of their own, truly concurrent with the pushes.
 */
public final class TransportFixture implements RegionsContract.Fixture {
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    private final Map<NodeId, Transport> transports = new TreeMap<>();
    private final Map<NodeId, TransportRegions> regions = new TreeMap<>();
    private final ConcurrentLinkedQueue<Throwable> observerFailures = new ConcurrentLinkedQueue<>();
    private final int rounds;
    private volatile boolean observing;
    private Thread observer;

    /** Starts every transport; {@code ready} says when they can reach each other (e.g. TCP connections are up). */
    public TransportFixture(Map<NodeId, Transport> transports, int rounds, BooleanSupplier ready) {
        this.rounds = rounds;
        for (Map.Entry<NodeId, Transport> e : transports.entrySet()) {
            TransportRegions r = new TransportRegions(e.getKey(), e.getValue().regions());
            this.transports.put(e.getKey(), e.getValue());
            this.regions.put(e.getKey(), r);
            e.getValue().start(new TransportListener() {
                @Override
                public void onMessage(NodeId from, ProtocolMessage message) {}

                @Override
                public void onPushCompleted(long pushId, String region, NodeId target, boolean applied) {
                    r.completed(new PushCompletion(pushId, region, target, applied));
                }
            });
        }
        Await.until(DEADLINE, ready, () -> "the transports did not connect");
    }

    @Override
    public Regions regions(NodeId node) {
        return regions.get(node);
    }

    @Override
    public void awaitUntil(String what, BooleanSupplier condition) {
        Await.until(DEADLINE, condition, () -> what);
    }

    @Override
    public void letTravel() {
        // Real threads: the pushes travel on their own.
    }

    @Override
    public void observe(Runnable check) {
        observing = true;
        observer = Thread.ofPlatform().name("region-observer").start(() -> {
            try {
                while (observing) check.run();
                check.run();
            } catch (Throwable t) {
                observerFailures.add(t);
            }
        });
    }

    @Override
    public void stopObserving() {
        observing = false;
        try {
            if (observer != null) observer.join(DEADLINE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!observerFailures.isEmpty()) throw new AssertionError("the observer failed", observerFailures.peek());
    }

    @Override
    public void crash(NodeId node) {
        transports.get(node).close();
    }

    @Override
    public int rounds() {
        return rounds;
    }

    public Transport transport(NodeId node) {
        return transports.get(node);
    }

    @Override
    public void close() {
        observing = false;
        transports.values().forEach(Transport::close);
    }
}
