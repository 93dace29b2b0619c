package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import io.tandem.sst.LocalRows;
import io.tandem.sst.Sst;
import io.tandem.sst.SstRows;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Collection;
import java.util.List;

/** Two members' tables over local rows, member a's pushes recorded: what the SMC and control-push tests look at. */
final class RecordingRows {
    static final NodeId A = NodeId.of("a");
    static final NodeId B = NodeId.of("b");

    /** A push as a's writer made it: (offset in the row, length). */
    record Push(int offset, int length) {}

    private RecordingRows() {}

    /** a's Sst (each of its pushes added to {@code pushes}) and b's. */
    static Sst[] group(VsyncRow row, Arena arena, List<Push> pushes) {
        LocalRows rows = new LocalRows(arena, List.of(A, B), row.layout);
        SstRows a = rows.of(A);
        SstRows recording = new SstRows() {
            @Override
            public MemorySegment own() {
                return a.own();
            }

            @Override
            public MemorySegment row(NodeId member) {
                return a.row(member);
            }

            @Override
            public void push(int offset, int length, Collection<NodeId> targets) {
                pushes.add(new Push(offset, length));
                a.push(offset, length, targets);
            }

            @Override
            public long pushWithCompletion(int offset, int length, Collection<NodeId> targets) {
                pushes.add(new Push(offset, length));
                return a.pushWithCompletion(offset, length, targets);
            }
        };
        return new Sst[] {new Sst(row.layout, recording), new Sst(row.layout, rows.of(B))};
    }
}
