package io.tandem.kv.server;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jctools.queues.MpscUnboundedXaddArrayQueue;

/**
 * Replies completed off the client endpoint's I/O thread (on the execution thread, which completes
 * most of them), handed to that I/O thread in one task per batch instead of one task per reply
 * (issue 25, fewer hand-offs per put). Netty only writes a channel on its event loop, so one hop
 * remains; what goes is a task object, a queue entry and a possible wake-up of the I/O thread per
 * reply: the execution thread completes a whole executed batch in a row, and the I/O thread writes
 * all of it in one turn and flushes each connection once.
 *
 * <p>Order: replies of one connection are written in the order they were offered (one MPSC queue,
 * one consumer). A reply completed on the I/O thread itself is written at once, after whatever is
 * queued has been written, so it never overtakes an earlier one of its connection.
 *
 * <p>A reply knows its channel ({@code channelOf}): the queue holds the replies themselves, no wrapper per reply.
 */
final class ReplyQueue<R> {
    private final EventLoop loop;
    private final Function<? super R, Channel> channelOf;
    /** Encodes and writes one reply to its channel without flushing (I/O thread). */
    private final Consumer<? super R> write;
    private final MpscUnboundedXaddArrayQueue<R> queue = new MpscUnboundedXaddArrayQueue<>(1024);
    /** True while a drain task is queued on the loop and has not started taking replies yet. */
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drain;
    /** Channels written in the current drain (I/O thread only): each is flushed once at its end. */
    private final Set<Channel> touched = Collections.newSetFromMap(new IdentityHashMap<>());

    ReplyQueue(EventLoop loop, Function<? super R, Channel> channelOf, Consumer<? super R> write) {
        this.loop = loop;
        this.channelOf = channelOf;
        this.write = write;
    }

    EventLoop loop() {
        return loop;
    }

    /** Writes {@code reply} to its channel: at once on the I/O thread, else with the next batch. */
    void offer(R reply) {
        if (loop.inEventLoop()) {
            if (!queue.isEmpty()) drain();
            write.accept(reply);
            channelOf.apply(reply).flush();
            return;
        }
        queue.offer(reply);
        // Only the first reply after a drain started queues a task: the rest ride along with it.
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) loop.execute(drainTask);
    }

    /** Writes every queued reply and flushes each connection written once; the number of replies (I/O thread). */
    int drain() {
        // Cleared before taking: a reply offered from here on queues another task (or is taken by this one
        // and its task finds nothing), so no reply is left behind.
        scheduled.set(false);
        int n = 0;
        for (R r; (r = queue.poll()) != null; n++) {
            write.accept(r);
            touched.add(channelOf.apply(r));
        }
        for (Channel ch : touched) ch.flush();
        touched.clear();
        return n;
    }
}
