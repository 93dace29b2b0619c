package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.ClientRequest.Session;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.execution.ExecutionListener;
import io.tandem.execution.ExecutorFactory;
import io.tandem.execution.SequentialExecutor;
import io.tandem.statemachine.CommandResult;
import io.tandem.statemachine.StateMachine;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The execution thread's session lookups (hot24): a request that no longer waits is not looked up, so its command's
 * cached result is not encoded for nobody; a request that still waits gets the cached result as before. The thread runs
 * its tasks in order, and an {@link ExecutionThread.Exclusive} task answers the lookups queued before it, so the test
 * knows when they ran without sleeping.
 */
class ExecutionThreadLookupTest {
    private static final NodeId N1 = NodeId.of("n1");

    /** Answers each command with its own bytes, as a result that counts how often it is encoded. */
    private static final class CountingMachine implements StateMachine {
        final AtomicInteger encodes = new AtomicInteger();

        @Override
        public byte[] apply(long index, byte[] command) {
            return command.clone();
        }

        @Override
        public CommandResult applyForResult(long index, byte[] command) {
            byte[] answer = command.clone();
            return () -> {
                encodes.incrementAndGet();
                return answer;
            };
        }

        @Override
        public byte[] query(byte[] query) {
            return new byte[0];
        }

        @Override
        public void snapshot(OutputStream out) {}

        @Override
        public void restore(InputStream in) {}
    }

    private static final class NoListener implements ExecutionListener {
        @Override
        public void executed(Committed entry, Outcome outcome) {}

        @Override
        public void readAnswered(long requestId, byte[] result, RuntimeException error) {}
    }

    private ExecutionThread thread;

    @AfterEach
    void close() {
        if (thread != null) thread.close();
    }

    @Test
    void onlyRequestsStillWaitingAreLookedUpAndOnlyTheirResultsEncoded() throws InterruptedException {
        CountingMachine machine = new CountingMachine();
        thread = new ExecutionThread("n1", new SequentialExecutor(machine, new NoListener(), ExecutorFactory.Limits.DEFAULTS), applied -> {}, () -> {});
        thread.start();
        byte[] a = "a".getBytes(StandardCharsets.UTF_8);
        byte[] b = "b".getBytes(StandardCharsets.UTF_8);
        Session sa = new Session(7, 1), sb = new Session(7, 2);
        thread.submit(new ExecutionThread.ApplyAll(List.of(new Committed(1, N1, 11, sa, a), new Committed(2, N1, 12, sb, b))));
        ClientRequest answered = ClientRequest.command(21, sa, a); // its own execution answered it already
        ClientRequest waiting = ClientRequest.command(22, sb, b); // a retry whose first copy ran here
        ClientRequest notRun = ClientRequest.command(23, new Session(7, 3), a); // never executed: nothing cached
        List<String> found = new ArrayList<>(); // written by the execution thread, read after the latch
        List<Long> asked = new ArrayList<>();
        thread.submitQuietly(new ExecutionThread.Lookup(List.of(answered, waiting, notRun),
                r -> {
                    asked.add(r.requestId());
                    return r != answered;
                },
                (r, result) -> found.add(r.requestId() + "=" + new String(result, StandardCharsets.UTF_8))));
        CountDownLatch done = new CountDownLatch(1);
        thread.submit(new ExecutionThread.Exclusive(done::countDown)); // answers the lookups queued before it first
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(asked).containsExactly(21L, 22L, 23L);
        assertThat(found).containsExactly("22=b");
        assertThat(machine.encodes.get()).as("only the waiting request's cached result is encoded").isEqualTo(1);
    }
}
