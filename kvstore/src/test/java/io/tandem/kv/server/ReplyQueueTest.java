package io.tandem.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.Channel;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tandem.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReplyQueueTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final DefaultEventLoop loop = new DefaultEventLoop();
    /** (channel, reply) in the order the I/O thread wrote them, and whether each was written on it. */
    private final List<String> writes = new CopyOnWriteArrayList<>();
    private final List<Boolean> onLoop = new CopyOnWriteArrayList<>();
    private record Out(Channel channel, int reply) {}

    private final ReplyQueue<Out> queue = new ReplyQueue<>(loop, Out::channel, this::write);
    private final EmbeddedChannel a = new EmbeddedChannel();
    private final EmbeddedChannel b = new EmbeddedChannel();

    private void write(Out out) {
        writes.add((out.channel() == a ? "a" : "b") + out.reply());
        onLoop.add(loop.inEventLoop());
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }

    @Test
    void repliesFromAnotherThreadAreAllWrittenOnTheLoopInOfferOrder() throws Exception {
        Thread producer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 10_000; i++) queue.offer(new Out(i % 2 == 0 ? a : b, i));
        });
        producer.join();
        Await.until(WAIT, () -> writes.size() == 10_000, () -> writes.size() + " of 10000 written");
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) expected.add((i % 2 == 0 ? "a" : "b") + i);
        assertThat(writes).isEqualTo(expected);
        assertThat(onLoop).containsOnly(true);
    }

    @Test
    void aReplyCompletedOnTheLoopDoesNotOvertakeQueuedOnes() throws Exception {
        // Block the loop so that replies queue up behind it, then offer one on the loop itself.
        CompletableFuture<Void> release = new CompletableFuture<>();
        loop.execute(release::join);
        queue.offer(new Out(a, 1));
        queue.offer(new Out(a, 2));
        loop.execute(() -> queue.offer(new Out(a, 3)));
        release.complete(null);
        Await.until(WAIT, () -> writes.size() == 3, () -> "written " + writes);
        assertThat(writes).containsExactly("a1", "a2", "a3");
    }

    @Test
    void aBurstQueuesOneTaskOnTheLoop() throws Exception {
        CompletableFuture<Void> started = new CompletableFuture<>();
        CompletableFuture<Void> release = new CompletableFuture<>();
        loop.execute(() -> {
            started.complete(null);
            release.join();
        });
        started.get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 100; i++) queue.offer(new Out(b, i));
        // The first reply queued the drain task; the other 99 ride along with it.
        assertThat(loop.pendingTasks()).isEqualTo(1);
        release.complete(null);
        Await.until(WAIT, () -> writes.size() == 100, () -> "written " + writes.size());
        assertThat(loop.submit(queue::drain).get(10, TimeUnit.SECONDS)).isZero();
    }
}
