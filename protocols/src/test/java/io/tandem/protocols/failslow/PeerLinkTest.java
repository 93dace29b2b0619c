package io.tandem.protocols.failslow;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import org.junit.jupiter.api.Test;

class PeerLinkTest {
    private static final NodeId P = NodeId.of("p");

    @Test
    void theWindowIsBoundedInMessagesAndInBytes() {
        PeerLink l = new PeerLink(P, 0);
        l.sent(1, 10, 100, 0);
        assertThat(l.windowFull(2, 1000)).isFalse();
        l.sent(11, 20, 100, 0);
        assertThat(l.windowFull(2, 1000)).as("two messages").isTrue();
        assertThat(l.windowFull(3, 200)).as("200 bytes").isTrue();
        assertThat(l.windowFull(3, 201)).isFalse();
        assertThat(l.overCap(2, 200)).as("full is not over the cap").isFalse();
        l.sent(21, 30, 1, 0);
        assertThat(l.overCap(2, 1000)).isTrue();
        assertThat(l.overCap(3, 200)).isTrue();
        l.clearInflight();
        assertThat(l.inflightMessages()).isZero();
        assertThat(l.inflightBytes()).isZero();
        assertThat(l.oldestInflight()).isNull();
    }

    @Test
    void aCumulativeAcknowledgementFreesEveryMessageItCoversAndSamplesTheNewest() {
        PeerLink l = new PeerLink(P, 0);
        l.sent(1, 10, 100, 0);
        l.sent(11, 20, 50, 40);
        l.sent(21, 30, 25, 60);
        l.acknowledgedThrough(15, 100);
        assertThat(l.inflightMessages()).as("11..20 is not wholly acknowledged").isEqualTo(2);
        assertThat(l.srttNanos()).isEqualTo(100);
        l.acknowledgedThrough(30, 100);
        assertThat(l.inflightMessages()).isZero();
        assertThat(l.inflightBytes()).isZero();
        assertThat(l.srttNanos()).as("sampled 40 ns: (7 * 100 + 40) / 8").isEqualTo(92);
    }

    @Test
    void anAnswerToOneMessageFreesOnlyThatMessage() {
        PeerLink l = new PeerLink(P, 0);
        l.sent(1, 4, 10, 0);
        l.sent(5, 8, 20, 10);
        l.acknowledged(5, 30);
        assertThat(l.inflightMessages()).isEqualTo(1);
        assertThat(l.inflightBytes()).isEqualTo(10);
        assertThat(l.oldestInflight().first()).isEqualTo(1);
        assertThat(l.srttNanos()).isEqualTo(20);
        l.acknowledged(99, 40);
        assertThat(l.inflightMessages()).as("an answer to nothing in flight frees nothing").isEqualTo(1);
    }

    @Test
    void roundTripsFollowRfc6298() {
        PeerLink l = new PeerLink(P, 0);
        l.sampleRoundTrip(0);
        assertThat(l.srttNanos()).as("a non-positive sample is ignored").isZero();
        l.sampleRoundTrip(800);
        assertThat(l.srttNanos()).isEqualTo(800);
        assertThat(l.rttVarNanos()).isEqualTo(400);
        l.sampleRoundTrip(1600);
        assertThat(l.rttVarNanos()).isEqualTo((3 * 400 + 800) / 4);
        assertThat(l.srttNanos()).isEqualTo((7 * 800 + 1600) / 8);
    }

    @Test
    void theResendTimeoutAdaptsToTheRoundTripAndBacksOffUntilProgress() {
        PeerLink l = new PeerLink(P, 0);
        assertThat(l.resendTimeout(1000)).as("unmeasured: the interval").isEqualTo(1000);
        l.sampleRoundTrip(800); // rto = 800 + 4 * 400
        assertThat(l.resendTimeout(1000)).as("a slow peer is not a lost message").isEqualTo(2400);
        assertThat(l.mayResend(0, 2400)).isTrue();
        l.resending(0);
        assertThat(l.mayResend(2399, 2400)).as("at most one resend per timeout").isFalse();
        assertThat(l.mayResend(2400, 2400)).isTrue();
        assertThat(l.resendTimeout(1000)).isEqualTo(4800);
        for (int i = 0; i < 5; i++) l.resending(10_000 * (i + 1));
        assertThat(l.resendTimeout(1000)).as("backs off to 8x at most").isEqualTo(8 * 2400);
        l.progressed(100_000);
        assertThat(l.resendTimeout(1000)).isEqualTo(2400);
        assertThat(l.lastProgressAt()).isEqualTo(100_000);
        l.resending(200_000);
        l.restartProgressWait(300_000);
        assertThat(l.lastProgressAt()).isEqualTo(300_000);
        assertThat(l.resendTimeout(1000)).as("a restarted wait keeps the backoff").isEqualTo(4800);
    }

    @Test
    void resendingReportsWhetherThePeerAnsweredSinceThePreviousResend() {
        PeerLink l = new PeerLink(P, 5);
        assertThat(l.lastHeardAt()).isEqualTo(5);
        assertThat(l.resending(10)).isFalse();
        l.heard(20);
        assertThat(l.lastHeardAt()).isEqualTo(20);
        assertThat(l.resending(30)).isTrue();
        assertThat(l.resending(40)).isFalse();
    }

    @Test
    void resendsOfTheSameRangeInARowAreCountedUntilProgress() {
        PeerLink l = new PeerLink(P, 0);
        assertThat(l.resentFrom(7)).isEqualTo(1);
        assertThat(l.resentFrom(7)).isEqualTo(2);
        assertThat(l.resentFrom(7)).isEqualTo(3);
        assertThat(l.resentFrom(9)).as("another range starts a new count").isEqualTo(1);
        assertThat(l.resentFrom(9)).isEqualTo(2);
        l.progressed(1);
        assertThat(l.resentFrom(9)).isEqualTo(1);
    }
}
