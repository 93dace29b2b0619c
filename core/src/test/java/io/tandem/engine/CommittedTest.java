package io.tandem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CommittedTest {
    private static final ClientRequest.Session SESSION = new ClientRequest.Session(7, 1);

    @Test
    void aCommandInsideALargerArrayIsItsRangeAndCommandGivesItAlone() {
        byte[] entry = {9, 9, 1, 2, 3, 9};
        Committed c = new Committed(5, NodeId.of("n1"), 3, SESSION, entry, 2, 3);
        assertThat(c.isNoop()).isFalse();
        assertThat(c.command()).containsExactly(1, 2, 3);
        assertThat(c.command()).isNotSameAs(entry);
        Committed whole = new Committed(5, NodeId.of("n1"), 3, SESSION, entry);
        assertThat(whole.command()).isSameAs(entry); // the whole array: no copy
        assertThat(whole.commandOffset()).isZero();
        assertThat(whole.commandLength()).isEqualTo(entry.length);
        assertThat(new Committed(5, NodeId.of("n1"), 3, SESSION, entry, 6, 0).command()).isEmpty();
    }

    @Test
    void aNoopHasNoCommandAndARangeMustLieInsideItsArray() {
        Committed noop = Committed.noop(4);
        assertThat(noop.isNoop()).isTrue();
        assertThat(noop.command()).isNull();
        byte[] entry = new byte[4];
        assertThatThrownBy(() -> new Committed(1, null, 0, SESSION, entry, 2, 3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new Committed(1, null, 0, SESSION, entry, -1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new Committed(1, null, 0, SESSION, null, 0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSessionTravelsAsItsNumbersUnderTheSessionsRules() {
        Committed c = new Committed(5, NodeId.of("n1"), 3, new ClientRequest.Session(7, 4, 2), new byte[1]);
        assertThat(c.hasSession()).isTrue();
        assertThat(new long[] {c.clientId(), c.sequence(), c.lowWatermark()}).containsExactly(7, 4, 2);
        assertThat(c.session()).isEqualTo(new ClientRequest.Session(7, 4, 2));
        Committed none = new Committed(5, NodeId.of("n1"), 3, ClientRequest.Session.NONE, new byte[1]);
        assertThat(none.hasSession()).isFalse();
        assertThat(none.session()).isSameAs(ClientRequest.Session.NONE);
        assertThat(Committed.noop(2).session()).isSameAs(ClientRequest.Session.NONE);
        // The numbers are checked as a session's are: a delivered command never carries a session no client could have.
        assertThatThrownBy(() -> new Committed(1, null, 0, 0, 1, 0, null, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Committed(1, null, 0, 7, 0, 0, null, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Committed(1, null, 0, 7, 3, 4, null, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Committed(1, null, 0, null, new byte[1])).isInstanceOf(NullPointerException.class);
    }
}
