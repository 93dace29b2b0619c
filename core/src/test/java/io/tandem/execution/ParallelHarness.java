package io.tandem.execution;

import io.tandem.engine.ClientRequest.Session;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Replicas sharing one ordered log (the one-log multicast layer, as an ordering engine would give
 * it): each replica applies the log in batches of its own random sizes (flush boundaries differ
 * between replicas and must not matter); the conservative copies every replica re-sends are
 * appended to the log's tail, as the engine would order them, until no replica re-sends.
 */
public final class ParallelHarness {
    public static final NodeId ORIGIN = NodeId.of("n1");

    /** A command of the log before ordering. */
    public record Command(byte[] bytes, Session session) {}

    public static final class Replica implements ExecutionListener {
        public final ParallelStateMachine machine;
        public final Executor executor;
        final SplittableRandom batches;
        /** "index=result" for every reported outcome of a command, in report order. */
        public final List<String> outcomes = new ArrayList<>();
        /** Commands in the order they took effect (the C12 trace-replay oracle). */
        public final List<byte[]> effective = new ArrayList<>();
        public final List<byte[]> resubmits = new ArrayList<>();
        int position;

        public Replica(ParallelStateMachine machine, Function<Replica, Executor> executor, long batchSeed) {
            this.machine = machine;
            this.batches = new SplittableRandom(batchSeed);
            this.executor = executor.apply(this);
        }

        @Override
        public void executed(Committed entry, Outcome outcome) {
            if (entry.isNoop() || Multicast.decode(entry.command()) != null) return; // a copy's own entry
            String result = switch (outcome) {
                case Outcome.Applied a -> {
                    effective.add(entry.command());
                    yield HexFormat.of().formatHex(a.result());
                }
                case Outcome.Duplicate d -> "dup" + HexFormat.of().formatHex(d.result());
                case Outcome.Stale s -> "stale";
            };
            outcomes.add(entry.index() + "=" + result);
        }

        @Override
        public void readAnswered(long requestId, byte[] result, RuntimeException error) {
            outcomes.add("read" + requestId + "=" + (error != null ? error.getMessage() : HexFormat.of().formatHex(result)));
        }

        @Override
        public void resubmit(byte[] taggedCommand) {
            resubmits.add(taggedCommand);
        }
    }

    public static List<Committed> initialLog(List<Command> commands) {
        List<Committed> log = new ArrayList<>();
        for (Command c : commands) log.add(new Committed(log.size() + 1, ORIGIN, log.size() + 1, c.session(), c.bytes()));
        return log;
    }

    /** Runs every replica to the end of the log, appending re-sent copies, until quiet. Returns the final log. */
    public static List<Committed> run(List<Committed> log, List<Replica> replicas) {
        log = new ArrayList<>(log);
        while (true) {
            for (Replica r : replicas) {
                while (r.position < log.size()) {
                    int n = 1 + r.batches.nextInt(Math.min(400, log.size() - r.position));
                    for (int i = 0; i < n; i++) r.executor.apply(log.get(r.position++));
                    r.executor.flush();
                }
            }
            boolean any = false;
            for (Replica r : replicas) {
                for (byte[] copy : r.resubmits) {
                    log.add(new Committed(log.size() + 1, NodeId.of("n2"), log.size() + 1, Session.NONE, copy));
                    any = true;
                }
                r.resubmits.clear();
            }
            if (!any) return log;
        }
    }

    private ParallelHarness() {}
}
