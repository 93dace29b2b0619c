package io.tandem.protocols.multipaxos;

import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.tandem.codec.BinarySerializer;
import java.util.ArrayList;
import java.util.List;

/**
 * Hand-written encodings of the messages every write sends (spec §1.4 phase 2: the proposal, 2a, 2b
 * and the chosen notice; with proxy leaders, spec §2.1, the leader's hand-off of 2a to a proxy), in place of Kryo's reflective record serializer. Phase 1, reads and repair
 * stay with Kryo: they are rare.
 *
 * <pre>
 * Propose   requestId:signed session payload:bytes
 * Accept    ballot firstSlot requestId:signed chosenThrough count value*
 * ChosenThrough  ballot chosenThrough requestId:signed
 * Accepted  ballot firstSlot lastSlot gcSlot requestId:signed
 * Chosen    firstSlot requestId:signed count value*
 * ProxyAccept  ballot firstSlot requestId:signed count value*   (as Accept: the leader's one send per command with proxies)
 * ballot    round proposer:signed                   (Ballot.ZERO is round 0, proposer -1)
 * value     tag:u8 0 NOOP | 1 COMMAND origin requestId:signed session payload:bytes | 2 LOG_READ origin requestId:signed
 * session   clientId:signed sequence lowWatermark
 * </pre>
 *
 * Integers are non-negative var-longs unless marked signed (zig-zag); {@code origin} is a node id
 * (var-int length, ASCII).
 */
final class PaxosWire {
    private PaxosWire() {}

    private static final byte NOOP = 0, COMMAND = 1, LOG_READ = 2;

    /** Shared value encoding; each message serializer is its own subclass so rejections name the message. */
    abstract static class WithValues<T> extends BinarySerializer<T> {
        WithValues(String name) {
            super(name);
        }

        final void writeBallot(Output out, Ballot b) {
            writePositive(out, b.round());
            writeSigned(out, b.proposer());
        }

        final Ballot readBallot(Input in) {
            long round = readPositive(in, "ballot.round");
            long proposer = readSigned(in, "ballot.proposer");
            if (proposer < Integer.MIN_VALUE || proposer > Integer.MAX_VALUE) throw reject("ballot.proposer " + proposer + " is out of range");
            if (round == 0 && proposer == -1) return Ballot.ZERO;
            return new Ballot(round, (int) proposer); // checks round/proposer consistency
        }

        final void writeValues(Output out, List<Value> values) {
            int n = values.size();
            writeCount(out, n);
            for (int i = 0; i < n; i++) {
                switch (values.get(i)) {
                    case Value.Noop noop -> out.writeByte(NOOP);
                    case Value.Command c -> {
                        out.writeByte(COMMAND);
                        writeNodeId(out, c.origin());
                        writeSigned(out, c.requestId());
                        writeSession(out, c.session());
                        writeByteString(out, c.payload());
                    }
                    case Value.LogRead r -> {
                        out.writeByte(LOG_READ);
                        writeNodeId(out, r.origin());
                        writeSigned(out, r.requestId());
                    }
                }
            }
        }

        final List<Value> readValues(Input in) {
            int n = readCount(in, "values", 1);
            List<Value> values = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                if (remaining(in) < 1) throw reject("truncated at value " + i);
                byte tag = in.readByte();
                values.add(switch (tag) {
                    case NOOP -> Value.NOOP;
                    case COMMAND -> new Value.Command(readNodeId(in, "value origin", false), readSigned(in, "value requestId"),
                            readSession(in, "value session"), readByteString(in, "value payload"));
                    case LOG_READ -> new Value.LogRead(readNodeId(in, "value origin", false), readSigned(in, "value requestId"));
                    default -> throw reject("value " + i + " has unknown tag " + tag);
                });
            }
            return values;
        }
    }

    static final class ProposeSerializer extends WithValues<MultiPaxosMessage.Propose> {
        ProposeSerializer() {
            super("Propose");
        }

        @Override
        protected void writeBody(Output out, MultiPaxosMessage.Propose m) {
            writeSigned(out, m.requestId());
            writeSession(out, m.session());
            writeByteString(out, m.payload());
        }

        @Override
        protected MultiPaxosMessage.Propose readBody(Input in) {
            return new MultiPaxosMessage.Propose(readSigned(in, "requestId"), readSession(in, "session"), readByteString(in, "payload"));
        }
    }

    static final class AcceptSerializer extends WithValues<MultiPaxosMessage.Accept> {
        AcceptSerializer() {
            super("Accept");
        }

        @Override
        protected void writeBody(Output out, MultiPaxosMessage.Accept m) {
            writeBallot(out, m.ballot());
            writePositive(out, m.firstSlot());
            writeSigned(out, m.requestId());
            writePositive(out, m.chosenThrough());
            writeValues(out, m.values());
        }

        @Override
        protected MultiPaxosMessage.Accept readBody(Input in) {
            Ballot ballot = readBallot(in);
            long firstSlot = readPositive(in, "firstSlot");
            long requestId = readSigned(in, "requestId");
            long chosenThrough = readPositive(in, "chosenThrough");
            return new MultiPaxosMessage.Accept(ballot, firstSlot, readValues(in), requestId, chosenThrough);
        }
    }

    /** The leader's chosen watermark alone (an idle leader's; under load it rides on {@code Accept}). */
    static final class ChosenThroughSerializer extends WithValues<MultiPaxosMessage.ChosenThrough> {
        ChosenThroughSerializer() {
            super("ChosenThrough");
        }

        @Override
        protected void writeBody(Output out, MultiPaxosMessage.ChosenThrough m) {
            writeBallot(out, m.ballot());
            writePositive(out, m.chosenThrough());
            writeSigned(out, m.requestId());
        }

        @Override
        protected MultiPaxosMessage.ChosenThrough readBody(Input in) {
            return new MultiPaxosMessage.ChosenThrough(readBallot(in), readPositive(in, "chosenThrough"), readSigned(in, "requestId"));
        }
    }

    static final class AcceptedSerializer extends WithValues<MultiPaxosMessage.Accepted> {
        AcceptedSerializer() {
            super("Accepted");
        }

        @Override
        protected void writeBody(Output out, MultiPaxosMessage.Accepted m) {
            writeBallot(out, m.ballot());
            writePositive(out, m.firstSlot());
            writePositive(out, m.lastSlot());
            writePositive(out, m.gcSlot());
            writeSigned(out, m.requestId());
        }

        @Override
        protected MultiPaxosMessage.Accepted readBody(Input in) {
            return new MultiPaxosMessage.Accepted(readBallot(in), readPositive(in, "firstSlot"), readPositive(in, "lastSlot"), readPositive(in, "gcSlot"),
                    readSigned(in, "requestId"));
        }
    }

    static final class ChosenSerializer extends WithValues<MultiPaxosMessage.Chosen> {
        ChosenSerializer() {
            super("Chosen");
        }

        @Override
        protected void writeBody(Output out, MultiPaxosMessage.Chosen m) {
            writePositive(out, m.firstSlot());
            writeSigned(out, m.requestId());
            writeValues(out, m.values());
        }

        @Override
        protected MultiPaxosMessage.Chosen readBody(Input in) {
            long firstSlot = readPositive(in, "firstSlot");
            long requestId = readSigned(in, "requestId");
            return new MultiPaxosMessage.Chosen(firstSlot, readValues(in), requestId);
        }
    }

    /**
     * The leader's only send per command with proxy leaders (spec §2.1), so on its hot path as much as
     * {@code Accept} is on the classic leader's: the same fields, the same encoding.
     */
    static final class ProxyAcceptSerializer extends WithValues<MultiPaxosMessage.ProxyAccept> {
        ProxyAcceptSerializer() {
            super("ProxyAccept");
        }

        @Override
        protected void writeBody(Output out, MultiPaxosMessage.ProxyAccept m) {
            writeBallot(out, m.ballot());
            writePositive(out, m.firstSlot());
            writeSigned(out, m.requestId());
            writeValues(out, m.values());
        }

        @Override
        protected MultiPaxosMessage.ProxyAccept readBody(Input in) {
            Ballot ballot = readBallot(in);
            long firstSlot = readPositive(in, "firstSlot");
            long requestId = readSigned(in, "requestId");
            return new MultiPaxosMessage.ProxyAccept(ballot, firstSlot, readValues(in), requestId);
        }
    }
}
