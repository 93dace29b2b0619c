package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.api.OverloadedException;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PendingRequestsTest {
    private static final byte[] CMD = {1, 2, 3};

    private static PendingRequests.Spec command(long client, long seq) {
        return new PendingRequests.Spec(ClientRequest.Kind.COMMAND, new ClientRequest.Session(client, seq, 0), CMD, null);
    }

    @Test
    void aRequestIsTakenOnceByIdOrBySession() {
        PendingRequests pending = new PendingRequests(10);
        PendingRequests.Pending a = pending.admit(0, 1000, command(7, 1), false);
        PendingRequests.Pending b = pending.admit(0, 1000, command(7, 2), false);
        assertThat(pending.size()).isEqualTo(2);
        assertThat(pending.get(a.requestId())).isSameAs(a);
        assertThat(pending.take(a.requestId())).isSameAs(a);
        assertThat(pending.take(a.requestId())).isNull();
        assertThat(pending.takeBySession(new ClientRequest.Session(7, 1, 0))).as("taken by id: its session entry went with it").isNull();
        assertThat(pending.takeBySession(new ClientRequest.Session(7, 2, 0))).isSameAs(b);
        assertThat(pending.take(b.requestId())).isNull();
        assertThat(pending.get(b.requestId())).isNull();
        assertThat(pending.size()).isZero();
    }

    @Test
    void forwardedRequestsAndReadsAreNotFiledBySession() {
        PendingRequests pending = new PendingRequests(10);
        PendingRequests.Pending f = pending.admitFor(new NodeId("r1"), 99, 0, 1000, command(7, 1));
        assertThat(f.filedBySession()).isFalse();
        assertThat(pending.takeBySession(new ClientRequest.Session(7, 1, 0))).isNull();
        assertThat(pending.take(f.requestId())).isSameAs(f);
    }

    @Test
    void commandsWhoseSessionSlotIsTakenAreStillFoundBySessionAndForgottenWhenTakenById() {
        PendingRequests pending = new PendingRequests(100_000);
        // More commands than the session index has slots: many share a slot and go to its overflow map.
        int n = PendingRequests.SESSION_SLOTS * 2;
        List<PendingRequests.Pending> all = new ArrayList<>();
        for (int i = 0; i < n; i++) all.add(pending.admit(0, 1000, command(1 + i % 97, 1 + i / 97), false));
        assertThat(all).allMatch(PendingRequests.Pending::filedBySession);
        // Half are taken by id (their session entries go with them), half by session.
        for (int i = 0; i < n; i += 2) assertThat(pending.take(all.get(i).requestId())).isSameAs(all.get(i));
        for (int i = 0; i < n; i += 2) assertThat(pending.takeBySession(all.get(i).request().session())).isNull();
        for (int i = 1; i < n; i += 2) assertThat(pending.takeBySession(all.get(i).request().session())).isSameAs(all.get(i));
        assertThat(pending.size()).isZero();
    }

    @Test
    void twoRequestsForOneCommandAreEachTakenOnce() {
        // A client's retry through this node while its first try still waits: both wait for the same command.
        PendingRequests pending = new PendingRequests(10);
        PendingRequests.Pending first = pending.admit(0, 1000, command(5, 3), false);
        PendingRequests.Pending retry = pending.admit(0, 1000, command(5, 3), false);
        PendingRequests.Pending bySession = pending.takeBySession(new ClientRequest.Session(5, 3, 0));
        assertThat(bySession).isIn(first, retry);
        PendingRequests.Pending other = bySession == first ? retry : first;
        assertThat(pending.take(bySession.requestId())).isNull();
        assertThat(pending.take(other.requestId())).isSameAs(other);
        assertThat(pending.takeBySession(new ClientRequest.Session(5, 3, 0))).isNull();
        assertThat(pending.size()).isZero();
    }

    @Test
    void aRequestWithAnAnswerIsCompletedThroughItAndHasNoFuture() {
        PendingRequests pending = new PendingRequests(10);
        List<Object> answers = new ArrayList<>();
        RequestAnswer answer = new RequestAnswer() {
            @Override
            public void completed(io.tandem.statemachine.CommandResult result) {
                answers.add(result);
            }

            @Override
            public void failed(Throwable error) {
                answers.add(error);
            }
        };
        PendingRequests.Pending a = pending.admit(0, 1000, command(9, 1), false, answer);
        PendingRequests.Pending b = pending.admit(0, 1000, command(9, 2), false, answer);
        assertThat(a.future()).isNull();
        io.tandem.statemachine.CommandResult result = () -> new byte[] {4, 2};
        pending.take(a.requestId()).complete(result);
        assertThat(answers).containsExactly(result); // handed over as it is, not encoded
        pending.failAll(new IllegalStateException("stopped"));
        assertThat(answers).hasSize(2);
        assertThat(answers.get(1)).isInstanceOf(IllegalStateException.class);
        assertThat(pending.take(b.requestId())).isNull();
    }

    @Test
    void theLimitHoldsAndFreesUp() {
        PendingRequests pending = new PendingRequests(2);
        PendingRequests.Pending a = pending.admit(0, 1000, command(1, 1), false);
        pending.admit(0, 1000, command(1, 2), false);
        assertThatThrownBy(() -> pending.admit(0, 1000, command(1, 3), false)).isInstanceOf(OverloadedException.class);
        assertThat(pending.size()).isEqualTo(2);
        pending.take(a.requestId());
        assertThat(pending.admit(0, 1000, command(1, 3), false)).isNotNull();
    }

    @Test
    void aRequestWhoseSlotIsHeldByAnOlderOneIsStillFoundAndExpired() {
        PendingRequests pending = new PendingRequests(100_000);
        // The first request lingers (a long deadline) while SLOTS * 3 others come and go: some of them find its slot taken.
        PendingRequests.Pending old = pending.admit(0, 1_000_000, command(1, 1), false);
        List<PendingRequests.Pending> young = new ArrayList<>();
        for (int i = 0; i < PendingRequests.SLOTS * 3; i++) young.add(pending.admit(0, 10, command(2, i + 1), false));
        assertThat(pending.size()).isEqualTo(1 + PendingRequests.SLOTS * 3);
        for (PendingRequests.Pending p : young) assertThat(pending.get(p.requestId())).isSameAs(p);
        // Half of them complete; the rest expire at time 10, the old one does not.
        for (int i = 0; i < young.size(); i += 2) assertThat(pending.take(young.get(i).requestId())).isSameAs(young.get(i));
        List<PendingRequests.Pending> expired = new ArrayList<>();
        pending.expire(10, expired::add);
        assertThat(expired).hasSize(young.size() / 2).doesNotContain(old);
        for (PendingRequests.Pending p : expired) assertThat(pending.takeBySession(p.request().session())).isNull();
        assertThat(pending.size()).isEqualTo(1);
        assertThat(pending.takeBySession(new ClientRequest.Session(1, 1, 0))).isSameAs(old);
        assertThat(pending.size()).isZero();
    }

    @Test
    void failAllFailsEachOnce() {
        PendingRequests pending = new PendingRequests(100);
        List<PendingRequests.Pending> all = new ArrayList<>();
        for (int i = 0; i < 50; i++) all.add(pending.admit(0, 1000, command(3, i + 1), false));
        pending.failAll(new IllegalStateException("stopped"));
        assertThat(all).allMatch(p -> p.future().isCompletedExceptionally());
        assertThat(pending.size()).isZero();
        assertThat(pending.take(all.getFirst().requestId())).isNull();
    }

    @Test
    void concurrentAdmittersAndTakersCompleteEveryRequestExactlyOnce() throws Exception {
        PendingRequests pending = new PendingRequests(1_000_000);
        int perThread = 20_000;
        ConcurrentLinkedQueue<PendingRequests.Pending> admitted = new ConcurrentLinkedQueue<>();
        AtomicInteger taken = new AtomicInteger();
        CountDownLatch admittersDone = new CountDownLatch(2);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            long client = t + 1;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perThread; i++) admitted.add(pending.admit(0, 1000, command(client, i + 1), false));
                admittersDone.countDown();
            }));
        }
        Set<Long> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        // Two takers race for each request: one by id, one by session; exactly one may get it.
        Runnable taker = () -> {
            while (true) {
                PendingRequests.Pending p = admitted.poll();
                if (p == null) {
                    if (admittersDone.getCount() == 0 && admitted.isEmpty()) return;
                    Thread.onSpinWait();
                    continue;
                }
                PendingRequests.Pending byId = pending.take(p.requestId());
                PendingRequests.Pending bySession = pending.takeBySession(p.request().session());
                int got = (byId != null ? 1 : 0) + (bySession != null ? 1 : 0);
                if (got != 1 || !seen.add(p.requestId())) throw new AssertionError("request " + p.requestId() + " taken " + got + " times");
                taken.incrementAndGet();
            }
        };
        Thread t1 = Thread.ofPlatform().start(taker), t2 = Thread.ofPlatform().start(taker);
        assertThat(admittersDone.await(60, TimeUnit.SECONDS)).isTrue();
        t1.join(TimeUnit.SECONDS.toMillis(60));
        t2.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(taken.get()).isEqualTo(2 * perThread);
        assertThat(pending.size()).isZero();
        assertThat(new HashSet<>(seen)).hasSize(2 * perThread);
    }
}
