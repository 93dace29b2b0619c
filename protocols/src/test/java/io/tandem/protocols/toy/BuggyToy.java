package io.tandem.protocols.toy;

import io.tandem.engine.NodeId;
import java.util.List;

/**
 * The toy engine's twin with a deliberate bug ({@code toy-pb-buggy}), which the simulator must tell
 * from the correct one. Test code only: its primary needs no copy at all (an overridden
 * {@link ToyPrimaryBackup#replicationQuorum}), so it commits, executes and acknowledges a command as
 * soon as it appends it, before any backup (or its own disk) has it, and serves reads without
 * confirming it still leads.
 */
public final class BuggyToy extends ToyProtocol {
    public static final String NAME = "toy-pb-buggy";

    public BuggyToy() {
        super(ToyConfig.DEFAULT);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    ToyPrimaryBackup newEngine(NodeId self, List<NodeId> members) {
        return new ToyPrimaryBackup(self, members, config()) {
            @Override
            int replicationQuorum() {
                return 0;
            }
        };
    }
}
