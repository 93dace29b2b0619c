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
}
