package io.tandem.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.ClientRequest.Session;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.sim.KvRegisterMachine;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SequentialExecutorTest {
    private static final NodeId N1 = NodeId.of("n1");

    /** What the executor reported, in order. */
    private static final class Log implements ExecutionListener {
        final List<String> events = new ArrayList<>();

        @Override
        public void executed(Committed entry, Outcome outcome) {
            events.add(entry.index() + ":" + switch (outcome) {
                case Outcome.Applied a -> "applied=" + ByteBuffer.wrap(a.result(), 1, 8).getLong();
                case Outcome.Duplicate d -> "duplicate=" + ByteBuffer.wrap(d.result(), 1, 8).getLong();
                case Outcome.Stale s -> "stale";
            });
        }

        @Override
        public void readAnswered(long requestId, byte[] result, RuntimeException error) {
            events.add("read" + requestId + "=" + (error != null ? error.getMessage() : KvRegisterMachine.readValue(result)));
        }
    }

    private static Committed add(long index, Session s) {
        return new Committed(index, N1, index, s, KvRegisterMachine.add(1, 1));
    }

    @Test
    void appliesEachCommandOfAPipelinedSessionOnceWhateverCopiesArrive() {
        Log log = new Log();
        SequentialExecutor x = new SequentialExecutor(new KvRegisterMachine(), log, ExecutorFactory.Limits.DEFAULTS);
        x.apply(add(1, new Session(5, 2, 1)));
        x.apply(add(2, new Session(5, 1, 1)));
        x.apply(add(3, new Session(5, 2, 1))); // a retry of 2 ordered again (another leader, another copy)
        x.apply(Committed.noop(4));
        x.apply(add(5, new Session(5, 3, 3))); // 1 and 2 answered: the client moved its watermark
        x.apply(add(6, new Session(5, 1, 1))); // a late copy of 1: below the watermark
        assertThat(log.events).containsExactly("1:applied=1", "2:applied=2", "3:duplicate=1", "5:applied=3", "6:stale");
        assertThat(x.appliedIndex()).isEqualTo(6);
    }

    @Test
    void flushEndsTheMachinesBatchBeforeItAnswersTheReadsThatWaited() {
        Log log = new Log();
        KvRegisterMachine register = new KvRegisterMachine();
        io.tandem.statemachine.StateMachine machine = new io.tandem.statemachine.StateMachine() {
            @Override
            public byte[] apply(long index, byte[] command) {
                return register.apply(index, command);
            }

            @Override
            public byte[] query(byte[] query) {
                return register.query(query);
            }

            @Override
            public void snapshot(java.io.OutputStream out) throws java.io.IOException {
                register.snapshot(out);
            }

            @Override
            public void restore(java.io.InputStream in) throws java.io.IOException {
                register.restore(in);
            }

            @Override
            public void endBatch() {
                log.events.add("endBatch");
            }
        };
        SequentialExecutor x = new SequentialExecutor(machine, log, ExecutorFactory.Limits.DEFAULTS);
        x.read(10, 2, KvRegisterMachine.read(1));
        x.apply(add(1, Session.NONE));
        x.apply(add(2, Session.NONE));
        x.flush();
        assertThat(log.events).containsExactly("1:applied=1", "2:applied=2", "endBatch", "read10=2");
    }

    @Test
    void readsWaitForTheirIndexAndAreAnsweredInArrivalOrder() {
        Log log = new Log();
        SequentialExecutor x = new SequentialExecutor(new KvRegisterMachine(), log, ExecutorFactory.Limits.DEFAULTS);
        x.read(10, 2, KvRegisterMachine.read(1));
        x.read(11, 1, KvRegisterMachine.read(1));
        x.read(12, 2, KvRegisterMachine.read(1));
        x.apply(add(1, Session.NONE));
        x.flush();
        assertThat(log.events).containsExactly("1:applied=1", "read11=1");
        x.apply(add(2, Session.NONE));
        x.flush();
        assertThat(log.events).containsExactly("1:applied=1", "read11=1", "2:applied=2", "read10=2", "read12=2");
        x.read(13, 0, new byte[] {9}); // not a query of this machine: the error goes to that read alone
        assertThat(log.events.getLast()).startsWith("read13=").contains("not a read");
    }

    @Test
    void aGapIsABugAndAReDeliveryIsIgnored() {
        SequentialExecutor x = new SequentialExecutor(new KvRegisterMachine(), new Log(), ExecutorFactory.Limits.DEFAULTS);
        x.apply(add(1, Session.NONE));
        x.apply(add(1, Session.NONE));
        assertThatThrownBy(() -> x.apply(add(3, Session.NONE))).isInstanceOf(IllegalStateException.class).hasMessageContaining("a gap");
    }

    @Test
    void aSnapshotCarriesStateSessionsAndIndexAndOldFormatsStillRestore() throws IOException {
        Log log = new Log();
        SequentialExecutor x = new SequentialExecutor(new KvRegisterMachine(), log, ExecutorFactory.Limits.DEFAULTS);
        x.apply(add(1, new Session(7, 1, 1)));
        x.apply(add(2, new Session(7, 2, 1)));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        x.writeSnapshot(bytes);
        Log after = new Log();
        SequentialExecutor y = new SequentialExecutor(new KvRegisterMachine(), after, ExecutorFactory.Limits.DEFAULTS);
        y.restoreSnapshot(new ByteArrayInputStream(bytes.toByteArray()));
        assertThat(y.appliedIndex()).isEqualTo(2);
        y.apply(add(3, new Session(7, 1, 1)));
        y.apply(add(4, new Session(7, 3, 1)));
        assertThat(after.events).containsExactly("3:duplicate=1", "4:applied=3");

        // Format 1, written by earlier builds: index 9, client 7 last applied sequence 4, then the machine.
        ByteArrayOutputStream old = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(old);
        out.writeInt(1);
        out.writeLong(9);
        out.writeInt(1);
        out.writeLong(7);
        out.writeLong(4);
        out.writeInt(-1);
        new KvRegisterMachine().snapshot(out);
        Log fromOld = new Log();
        SequentialExecutor z = new SequentialExecutor(new KvRegisterMachine(), fromOld, ExecutorFactory.Limits.DEFAULTS);
        z.restoreSnapshot(new ByteArrayInputStream(old.toByteArray()));
        assertThat(z.appliedIndex()).isEqualTo(9);
        z.apply(add(10, new Session(7, 3)));
        z.apply(add(11, new Session(7, 5)));
        assertThat(fromOld.events).containsExactly("10:stale", "11:applied=1");
    }
}
