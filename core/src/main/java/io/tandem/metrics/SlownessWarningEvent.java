package io.tandem.metrics;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** A fail-slow symptom as a JFR event (DESIGN §9), so a recording shows when a peer slowed the node. */
@Name("io.tandem.SlownessWarning")
@Label("Slowness warning")
@Category({"Tandem", "Replication"})
@Description("A fail-slow symptom reported by an engine: a growing outbox, resends, a wait on a single peer")
final class SlownessWarningEvent extends Event {
    @Label("Node")
    String node;

    @Label("Kind")
    String kind;

    @Label("Peer")
    String peer;

    @Label("Detail")
    String detail;
}
