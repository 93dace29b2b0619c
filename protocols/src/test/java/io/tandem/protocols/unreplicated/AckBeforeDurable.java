package io.tandem.protocols.unreplicated;

import io.tandem.engine.NodeId;
import java.util.List;

/**
 * The unreplicated engine's twin with a deliberate bug ({@code unreplicated-broken-ack-before-durable}):
 * it commits (executes and acknowledges) a write as soon as it is appended, before the log reports it
 * durable, so a crash loses acknowledged writes. Test code only, through an overridden
 * {@link UnreplicatedEngine#committableIndex}.
 */
public final class AckBeforeDurable extends UnreplicatedProtocol {
    public static final String NAME = UnreplicatedProtocol.NAME + "-broken-ack-before-durable";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    UnreplicatedEngine newEngine(NodeId self, List<NodeId> members) {
        return new UnreplicatedEngine(self, members, config()) {
            @Override
            long committableIndex() {
                return log().lastIndex();
            }
        };
    }
}
