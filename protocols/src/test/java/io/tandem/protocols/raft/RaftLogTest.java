package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.storage.DurableLog;
import io.tandem.storage.LogEntry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RaftLogTest {
    private static final NodeId A = NodeId.of("a"), B = NodeId.of("b"), C = NodeId.of("c"), D = NodeId.of("d");
    private static final Configuration ABC = Configuration.ofVoters(List.of(A, B, C));

    /** A plain in-memory log: the term bookkeeping does not depend on durability. */
    static final class ListLog implements DurableLog {
        long first = 1;
        final List<LogEntry> entries = new ArrayList<>();

        @Override
        public long firstIndex() {
            return first;
        }

        @Override
        public long lastIndex() {
            return first + entries.size() - 1;
        }

        @Override
        public long durableIndex() {
            return lastIndex();
        }

        @Override
        public LogEntry entry(long index) {
            return entries.get((int) (index - first));
        }

        @Override
        public void append(LogEntry entry) {
            entries.add(entry);
        }

        @Override
        public void truncateSuffix(long fromIndex) {
            while (lastIndex() >= fromIndex) entries.removeLast();
        }

        @Override
        public void compactPrefix(long upToIndex) {
            while (first <= upToIndex) {
                entries.removeFirst();
                first++;
            }
        }

        @Override
        public void resetAfter(long lastIncludedIndex) {
            entries.clear();
            first = lastIncludedIndex + 1;
        }
    }

    private static byte[] command(long id) {
        return EntryPayload.encode(new EntryPayload.Command(A, id, io.tandem.engine.ClientRequest.Session.NONE, new byte[] {1}));
    }

    /** A log with the given terms at indexes 1, 2, ... */
    private static RaftLog logWithTerms(long... terms) {
        RaftLog log = new RaftLog(new ListLog(), 0, 0, ABC);
        for (int i = 0; i < terms.length; i++) log.append(new LogEntry(i + 1, terms[i], command(i + 1)));
        return log;
    }

    @Test
    void termLookupsAtTheBaseInsideAndOutside() {
        RaftLog log = logWithTerms(1, 1, 2, 3);
        assertThat(log.termAt(0)).isZero();
        assertThat(log.termAt(3)).isEqualTo(2);
        assertThat(log.termAt(5)).isEqualTo(-1);
        assertThat(log.lastTerm()).isEqualTo(3);
        log.compactPrefix(2);
        assertThat(log.baseIndex()).isEqualTo(2);
        assertThat(log.termAt(2)).as("the base keeps its term").isEqualTo(1);
        assertThat(log.termAt(1)).isEqualTo(-1);
        assertThat(log.firstIndex()).isEqualTo(3);
    }

    @Test
    void upToDateComparesLastTermThenLength() {
        RaftLog log = logWithTerms(1, 2, 2);
        assertThat(log.isUpToDate(3, 2)).isTrue();
        assertThat(log.isUpToDate(2, 2)).isFalse();
        assertThat(log.isUpToDate(1, 3)).as("a higher last term wins even if shorter").isTrue();
        assertThat(log.isUpToDate(10, 1)).isFalse();
    }

    @Test
    void termSearchesAreExact() {
        RaftLog log = logWithTerms(1, 1, 3, 3, 3, 5, 6, 6);
        assertThat(log.lastIndexOfTerm(3)).isEqualTo(5);
        assertThat(log.lastIndexOfTerm(1)).isEqualTo(2);
        assertThat(log.lastIndexOfTerm(4)).isEqualTo(-1);
        assertThat(log.lastIndexOfTerm(6)).isEqualTo(8);
        assertThat(log.firstIndexOfTerm(3, 5)).isEqualTo(3);
        assertThat(log.firstIndexOfTerm(6, 7)).isEqualTo(7);
        assertThat(log.firstIndexOfTerm(1, 2)).isEqualTo(1);
    }

    /**
     * Figure 7 of the Raft paper: the leader of term 8 has 1 1 1 4 4 5 5 6 6 6. For each follower the
     * hinted next index skips whole terms instead of walking back one entry at a time.
     */
    @Test
    void conflictHintsSkipWholeTerms() {
        RaftLog leader = logWithTerms(1, 1, 1, 4, 4, 5, 5, 6, 6, 6);
        // Follower (e): 1 1 1 4 4 4 4 — probed at prev=10 (leader's last): it is shorter, hint = its end + 1.
        assertThat(leader.nextIndexAfterConflict(10, 0, 8, 0)).isEqualTo(8);
        // Probed at prev=7 (term 5 on the leader), follower has term 4 there, first index of its term 4 is 4.
        // The leader has term 4 up to index 5, so it continues right after its own last term-4 entry.
        assertThat(leader.nextIndexAfterConflict(7, 4, 4, 0)).isEqualTo(6);
        // Follower (f): 1 1 1 2 2 2 3 3 3 3 3 — at prev=10 it has term 3 from index 7; the leader has no term 3.
        assertThat(leader.nextIndexAfterConflict(10, 3, 7, 0)).isEqualTo(7);
        // Then at prev=6 it has term 2 from index 4; the leader has no term 2 either.
        assertThat(leader.nextIndexAfterConflict(6, 2, 4, 0)).isEqualTo(4);
        // Never below what the follower is known to match, never past the rejected prev.
        assertThat(leader.nextIndexAfterConflict(6, 2, 1, 4)).isEqualTo(5);
        assertThat(leader.nextIndexAfterConflict(3, 6, 9, 0)).isEqualTo(3);
    }

    @Test
    void configurationEntriesAreEffectiveWhenAppendedAndRevertedWhenTruncated() {
        RaftLog log = logWithTerms(1, 1);
        Configuration abcd = ABC.withLearner(D);
        log.append(new LogEntry(3, 1, EntryPayload.encode(new EntryPayload.ConfigChange(A, 9, abcd))));
        assertThat(log.configuration()).isEqualTo(abcd);
        assertThat(log.configurationIndex()).isEqualTo(3);
        assertThat(log.configurationAt(2)).isEqualTo(ABC);
        log.truncateSuffix(3);
        assertThat(log.configuration()).isEqualTo(ABC);
        assertThat(log.configurationIndex()).isZero();
    }

    @Test
    void compactionKeepsTheConfigurationInEffect() {
        RaftLog log = logWithTerms(1);
        Configuration ab = Configuration.ofVoters(List.of(A, B));
        log.append(new LogEntry(2, 1, EntryPayload.encode(new EntryPayload.ConfigChange(A, 9, ab))));
        log.append(new LogEntry(3, 1, command(3)));
        log.compactPrefix(3);
        assertThat(log.configuration()).isEqualTo(ab);
        assertThat(log.configurationAt(3)).isEqualTo(ab);
        assertThatThrownBy(() -> log.truncateSuffix(3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRebuiltLogFindsTheConfigurationEntriesItHolds() {
        ListLog raw = new ListLog();
        RaftLog log = new RaftLog(raw, 0, 0, ABC);
        log.append(new LogEntry(1, 1, command(1)));
        log.append(new LogEntry(2, 1, EntryPayload.encode(new EntryPayload.ConfigChange(A, 9, ABC.without(C)))));
        RaftLog rebuilt = new RaftLog(raw, 0, 0, ABC);
        assertThat(rebuilt.configuration()).isEqualTo(ABC.without(C));
    }

    @Test
    void installingASnapshotKeepsAMatchingSuffixAndDiscardsAConflictingLog() {
        RaftLog keep = logWithTerms(1, 1, 2, 2);
        keep.installSnapshot(2, 1, ABC);
        assertThat(keep.baseIndex()).isEqualTo(2);
        assertThat(keep.lastIndex()).as("entries after a matching snapshot entry survive").isEqualTo(4);
        RaftLog discard = logWithTerms(1, 1, 2, 2);
        discard.installSnapshot(3, 3, ABC);
        assertThat(discard.lastIndex()).isEqualTo(3);
        assertThat(discard.firstIndex()).isEqualTo(4);
        assertThat(discard.termAt(3)).isEqualTo(3);
    }

    @Test
    void aSnapshotOverAConflictingLogForgetsTheConfigurationsOfTheDiscardedEntries() {
        RaftLog log = logWithTerms(1, 1, 2, 2);
        Configuration abcd = ABC.withLearner(D);
        log.append(new LogEntry(5, 2, EntryPayload.encode(new EntryPayload.ConfigChange(A, 9, abcd))));
        assertThat(log.configuration()).isEqualTo(abcd);
        // The snapshot's entry 3 has another term: every entry of ours is discarded, its configuration with it
        // (a configuration of a deposed leader's suffix must never be the one in effect, §6).
        log.installSnapshot(3, 3, ABC);
        assertThat(log.configuration()).isEqualTo(ABC);
        assertThat(log.configurationIndex()).isEqualTo(3);
        RaftLog keep = logWithTerms(1, 1, 2, 2);
        keep.append(new LogEntry(5, 2, EntryPayload.encode(new EntryPayload.ConfigChange(A, 9, abcd))));
        keep.installSnapshot(2, 1, ABC);
        assertThat(keep.configuration()).as("a matching snapshot keeps the suffix and its configuration").isEqualTo(abcd);
    }
}
