package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.api.OverloadedException;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.List;
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

    /** A command admitted at time 0 and filed by session, as its lookup does when the command has not run yet. */
    private static PendingRequests.Pending admittedAndFiled(PendingRequests pending, long timeout, long client, long seq) {
        PendingRequests.Pending p = pending.admit(0, timeout, command(client, seq), false);
        pending.fileBySession(p.requestId());
        return p;
    }

    @Test
    void aRequestIsTakenOnceByIdOrBySession() {
        PendingRequests pending = new PendingRequests(10);
        PendingRequests.Pending a = pending.admit(0, 1000, command(7, 1), false);
        PendingRequests.Pending b = pending.admit(0, 1000, command(7, 2), false);
        assertThat(pending.size()).isEqualTo(2);
        assertThat(pending.get(a.requestId())).isSameAs(a);
        pending.fileBySession(a.requestId());
        pending.fileBySession(b.requestId());
        assertThat(pending.take(a.requestId())).isSameAs(a);
        assertThat(pending.take(a.requestId())).isNull();
        assertThat(pending.takeBySession(7, 1)).as("taken by id: its session entry is stale and gives nothing").isNull();
        assertThat(pending.takeBySession(7, 2)).isSameAs(b);
        assertThat(pending.take(b.requestId())).isNull();
        assertThat(pending.get(b.requestId())).isNull();
        pending.publishReleases();
        assertThat(pending.size()).isZero();
        assertThat(pending.sessionIndexSize()).isZero();
    }

    @Test
    void aCommandIsFoundBySessionOnlyOnceItsLookupFiledIt() {
        PendingRequests pending = new PendingRequests(10);
        PendingRequests.Pending a = pending.admit(0, 1000, command(7, 1), false);
        assertThat(a.filedBySession()).isTrue();
        assertThat(pending.takeBySession(7, 1)).as("admission files nothing by session").isNull();
        pending.fileBySession(a.requestId());
        assertThat(pending.sessionIndexSize()).isEqualTo(1);
        assertThat(pending.takeBySession(7, 2)).isNull();
        assertThat(pending.takeBySession(8, 1)).isNull();
        assertThat(pending.takeBySession(7, 1)).isSameAs(a);
        assertThat(pending.takeBySession(7, 1)).isNull();
        assertThat(pending.size()).as("released at the batch's end").isEqualTo(1);
        pending.publishReleases();
        assertThat(pending.size()).isZero();
    }

    @Test
    void forwardedRequestsReadsAndCompletedRequestsAreNotFiledBySession() {
        PendingRequests pending = new PendingRequests(10);
        PendingRequests.Pending f = pending.admitFor(new NodeId("r1"), 99, 0, 1000, command(7, 1));
        PendingRequests.Pending r = pending.admit(0, 1000, new PendingRequests.Spec(ClientRequest.Kind.READ, ClientRequest.Session.NONE, CMD,
                io.tandem.engine.ReadPolicy.LINEARIZABLE), false);
        PendingRequests.Pending done = pending.admit(0, 1000, command(7, 2), false);
        assertThat(f.filedBySession()).isFalse();
        assertThat(r.filedBySession()).isFalse();
        pending.take(done.requestId());
        pending.fileBySession(f.requestId());
        pending.fileBySession(r.requestId());
        pending.fileBySession(done.requestId());
        assertThat(pending.sessionIndexSize()).isZero();
        assertThat(pending.takeBySession(7, 1)).isNull();
        assertThat(pending.take(f.requestId())).isSameAs(f);
    }

    @Test
    void manyFiledCommandsAreEachFoundBySessionOrForgottenWhenTheirExecutionTakesThemById() {
        PendingRequests pending = new PendingRequests(100_000);
        // Clients and sequences that collide in the index's probing; removed in a shuffled order (the backward shift).
        int n = 5000;
        List<PendingRequests.Pending> all = new ArrayList<>();
        for (int i = 0; i < n; i++) all.add(pending.admit(0, 1000, command(1 + i % 97, 1 + i / 97), false));
        for (PendingRequests.Pending p : all) pending.fileBySession(p.requestId());
        assertThat(pending.sessionIndexSize()).isEqualTo(n);
        List<PendingRequests.Pending> order = new ArrayList<>(all);
        java.util.Collections.shuffle(order, new java.util.Random(25));
        for (int i = 0; i < n; i++) {
            PendingRequests.Pending p = order.get(i);
            ClientRequest.Session s = p.request().session();
            if (i % 2 == 0) assertThat(pending.takeExecuted(p.requestId())).isSameAs(p);
            else assertThat(pending.takeBySession(s.clientId(), s.sequence())).isSameAs(p);
            assertThat(pending.sessionIndexSize()).isEqualTo(n - i - 1);
        }
        for (PendingRequests.Pending p : all) assertThat(pending.takeBySession(p.request().session())).isNull();
        pending.publishReleases();
        assertThat(pending.size()).isZero();
    }

    @Test
    void twoRequestsForOneCommandAreEachTakenOnce() {
        // A client's retry through this node while its first try still waits: both wait for the same command.
        PendingRequests pending = new PendingRequests(10);
        PendingRequests.Pending first = admittedAndFiled(pending, 1000, 5, 3);
        PendingRequests.Pending retry = admittedAndFiled(pending, 1000, 5, 3);
        PendingRequests.Pending bySession = pending.takeBySession(5, 3);
        assertThat(bySession).isIn(first, retry);
        PendingRequests.Pending other = bySession == first ? retry : first;
        assertThat(pending.take(bySession.requestId())).isNull();
        assertThat(pending.take(other.requestId())).isSameAs(other);
        assertThat(pending.takeBySession(5, 3)).isNull();
        pending.publishReleases();
        assertThat(pending.size()).isZero();
        assertThat(pending.sessionIndexSize()).isZero();
    }

    @Test
    void aStaleEntryIsPassedOverForALiveRequestOfTheSameCommand() {
        PendingRequests pending = new PendingRequests(10);
        PendingRequests.Pending first = admittedAndFiled(pending, 10, 5, 3);
        PendingRequests.Pending retry = admittedAndFiled(pending, 1000, 5, 3);
        List<PendingRequests.Pending> expired = new ArrayList<>();
        pending.expire(10, expired::add); // the loop times the first out; the index still holds it
        assertThat(expired).containsExactly(first);
        assertThat(pending.takeBySession(5, 3)).isSameAs(retry);
        assertThat(pending.sessionIndexSize()).isZero();
    }

    @Test
    void entriesCompletedElsewhereAreSweptSoTheIndexStaysWithinTwiceWhatIsPending() {
        PendingRequests pending = new PendingRequests(100_000);
        List<PendingRequests.Pending> live = new ArrayList<>();
        // A follower's forwarded puts: each filed by its lookup, then answered by the leader (taken by id on the loop),
        // never executed here under its session; 10 stay pending throughout.
        for (int i = 0; i < 10; i++) {
            PendingRequests.Pending p = pending.admit(0, 1000, command(1, i + 1), false);
            pending.fileBySession(p.requestId());
            live.add(p);
        }
        for (int i = 0; i < 20_000; i++) {
            PendingRequests.Pending p = pending.admit(0, 1000, command(2, i + 1), false);
            pending.fileBySession(p.requestId());
            assertThat(pending.take(p.requestId())).isSameAs(p);
            assertThat(pending.sessionIndexSize()).isLessThanOrEqualTo(2 * live.size() + PendingRequests.SessionIndex.MIN_SWEEP + 1);
        }
        for (PendingRequests.Pending p : live) assertThat(pending.takeBySession(p.request().session())).isSameAs(p);
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
        PendingRequests.Pending c = pending.admit(0, 1000, command(1, 3), false);
        // The execution thread's takes free their places when its batch ends, never before.
        assertThat(pending.takeExecuted(c.requestId())).isSameAs(c);
        assertThatThrownBy(() -> pending.admit(0, 1000, command(1, 4), false)).isInstanceOf(OverloadedException.class);
        pending.publishReleases();
        assertThat(pending.admit(0, 1000, command(1, 4), false)).isNotNull();
        assertThat(pending.size()).isEqualTo(2);
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
        pending.fileBySession(old.requestId());
        assertThat(pending.takeBySession(1, 1)).isSameAs(old);
        pending.publishReleases();
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
        // Two admitting threads (client I/O threads); one execution thread, which alone touches the session index: it
        // files each request, hands it to the loop thread and then takes it by session (or, every third one, by its
        // executed id), while the loop thread takes the same request by id (an answer, a timeout). Exactly one of the
        // two gets each request.
        PendingRequests pending = new PendingRequests(1_000_000);
        int perThread = 20_000;
        ConcurrentLinkedQueue<PendingRequests.Pending> admitted = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<PendingRequests.Pending> toLoop = new ConcurrentLinkedQueue<>();
        AtomicInteger taken = new AtomicInteger();
        CountDownLatch admittersDone = new CountDownLatch(2);
        CountDownLatch executionDone = new CountDownLatch(1);
        for (int t = 0; t < 2; t++) {
            long client = t + 1;
            Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perThread; i++) admitted.add(pending.admit(0, 1000, command(client, i + 1), false));
                admittersDone.countDown();
            });
        }
        java.util.Map<Long, Integer> gets = new java.util.concurrent.ConcurrentHashMap<>();
        Thread execution = Thread.ofPlatform().start(() -> {
            for (int n = 0; ; n++) {
                PendingRequests.Pending p = admitted.poll();
                if (p == null) {
                    if (admittersDone.getCount() == 0 && admitted.isEmpty()) break;
                    Thread.onSpinWait();
                    continue;
                }
                pending.fileBySession(p.requestId());
                toLoop.add(p);
                ClientRequest.Session s = p.request().session();
                PendingRequests.Pending got = n % 3 == 0 ? pending.takeExecuted(p.requestId()) : pending.takeBySession(s.clientId(), s.sequence());
                if (got != null) {
                    if (got != p) throw new AssertionError("took " + got + " for " + p);
                    gets.merge(p.requestId(), 1, Integer::sum);
                    taken.incrementAndGet();
                }
                if (n % 16 == 0) pending.publishReleases(); // a batch's end
            }
            pending.publishReleases();
            executionDone.countDown();
        });
        Thread loop = Thread.ofPlatform().start(() -> {
            while (true) {
                PendingRequests.Pending p = toLoop.poll();
                if (p == null) {
                    if (executionDone.getCount() == 0 && toLoop.isEmpty()) return;
                    Thread.onSpinWait();
                    continue;
                }
                if (pending.take(p.requestId()) != null) {
                    gets.merge(p.requestId(), 1, Integer::sum);
                    taken.incrementAndGet();
                }
            }
        });
        assertThat(admittersDone.await(60, TimeUnit.SECONDS)).isTrue();
        execution.join(TimeUnit.SECONDS.toMillis(60));
        loop.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(execution.isAlive() || loop.isAlive()).isFalse();
        assertThat(taken.get()).isEqualTo(2 * perThread);
        assertThat(gets).hasSize(2 * perThread).allSatisfy((id, n) -> assertThat(n).as("request %d", id).isEqualTo(1));
        assertThat(pending.size()).isZero();
    }
}
