package io.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MessageTest {
    private static final Address A = Address.of("n1");

    @Test
    void aSliceGivesItsBytesInPlaceAndAsACopy() {
        byte[] array = "xxhello!yy".getBytes(StandardCharsets.UTF_8);
        Message m = new Message(A, 7, array, 2, 6);
        assertThat(m.array()).isSameAs(array);
        assertThat(m.offset()).isEqualTo(2);
        assertThat(m.length()).isEqualTo(6);
        assertThat(m.text()).isEqualTo("hello!");
        byte[] copy = m.payload();
        assertThat(copy).isNotSameAs(array).containsExactly("hello!".getBytes(StandardCharsets.UTF_8));
        assertThat(m.toString()).contains("6 bytes");
    }

    @Test
    void aWholeArrayIsItsOwnPayload() {
        byte[] array = {1, 2, 3};
        Message m = new Message(A, 1, array);
        assertThat(m.payload()).isSameAs(array);
        assertThat(m.offset()).isZero();
        assertThat(m.length()).isEqualTo(3);
    }

    @Test
    void aSliceOutsideItsArrayIsRefused() {
        assertThatThrownBy(() -> new Message(A, 1, new byte[4], 2, 3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new Message(A, 1, new byte[4], -1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new Message(A, 1, null, 0, 0)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void theChannelDeliversThePayloadAfterTheSendersNameWithoutCopyingIt() {
        java.util.List<Message> got = new java.util.ArrayList<>();
        ReceiverStateMachine machine = recording(got, false);
        byte[] command = ReceiverStateMachine.encode(ReceiverStateMachine.prefix(NodeId.of("node-7")), "payload".getBytes(StandardCharsets.UTF_8));
        byte[] empty = ReceiverStateMachine.encode(ReceiverStateMachine.prefix(NodeId.of("n2")), new byte[0]);
        machine.apply(5, command);
        machine.apply(6, empty);
        assertThat(got.get(0).array()).isSameAs(command);
        assertThat(got.get(0).src()).isEqualTo(Address.of("node-7"));
        assertThat(got.get(0).position()).isEqualTo(5);
        assertThat(got.get(0).text()).isEqualTo("payload");
        assertThat(got.get(1).src()).isEqualTo(Address.of("n2"));
        assertThat(got.get(1).length()).isZero();
        assertThat(got.get(1).payload()).isEmpty();
        // The executor's call: the name in the command says who sent it, whatever the origin (over a leader's log the
        // origin of a forwarded command is the leader).
        machine.applyForResult(7, NodeId.of("leader"), command, 0, command.length);
        assertThat(got.get(2).src()).isEqualTo(Address.of("node-7"));
        assertThat(got.get(2).position()).isEqualTo(7);
        assertThat(got.get(2).text()).isEqualTo("payload");
    }

    @Test
    void overAProtocolThatNamesSendersTheCommandIsThePayloadAndItsOriginTheSender() {
        java.util.List<Message> got = new java.util.ArrayList<>();
        ReceiverStateMachine machine = recording(got, true);
        byte[] payload = "payload".getBytes(StandardCharsets.UTF_8);
        byte[] entry = "--payload--".getBytes(StandardCharsets.UTF_8);
        assertThat(machine.applyForResult(5, NodeId.of("node-7"), payload, 0, payload.length)).isEqualTo(new ReceiverStateMachine.Position(5));
        machine.applyForResult(6, NodeId.of("n2"), entry, 2, 7);
        machine.applyForResult(7, NodeId.of("node-7"), new byte[0], 0, 0);
        assertThat(got.get(0).array()).isSameAs(payload); // handed over as it is: the sender's own message is its array
        assertThat(got.get(0).src()).isEqualTo(Address.of("node-7"));
        assertThat(got.get(0).position()).isEqualTo(5);
        assertThat(got.get(0).text()).isEqualTo("payload");
        assertThat(got.get(1).array()).isSameAs(entry);
        assertThat(got.get(1).src()).isEqualTo(Address.of("n2"));
        assertThat(got.get(1).text()).isEqualTo("payload");
        assertThat(got.get(2).src()).isSameAs(got.get(0).src()); // one address per sender, not one per message
        assertThat(got.get(2).length()).isZero();
        // No sender to be had: refused, never delivered under a made-up name.
        assertThatThrownBy(() -> machine.applyForResult(8, null, payload, 0, payload.length)).isInstanceOf(IllegalStateException.class).hasMessageContaining("no origin");
        assertThatThrownBy(() -> machine.apply(8, payload)).isInstanceOf(IllegalStateException.class).hasMessageContaining("without its origin");
        assertThat(got).hasSize(3);
    }

    @Test
    void aDeliveredPositionIsEightBigEndianBytesAndReadsBack() {
        // The bytes ByteBuffer.putLong wrote before (the result format a forwarded send's caller decodes).
        for (long index : new long[] {0, 1, 255, 256, 0x0102030405060708L, Long.MAX_VALUE, -1, Long.MIN_VALUE}) {
            byte[] r = ReceiverStateMachine.position(index);
            assertThat(r).containsExactly(java.nio.ByteBuffer.allocate(Long.BYTES).putLong(index).array());
            assertThat(ReceiverStateMachine.positionOf(r)).isEqualTo(index);
        }
    }

    /** A channel's state machine whose receiver adds every message to {@code got}. */
    private static ReceiverStateMachine recording(java.util.List<Message> got, boolean senderIsOrigin) {
        return new ReceiverStateMachine(new Receiver() {
            @Override
            public void receive(Message message) {
                got.add(message);
            }
        }, senderIsOrigin);
    }
}
