package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import io.tandem.transport.FaultPlan;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One behaviour of the packet fault, as Jepsen's {@code :packet} nemesis describes netem's: a delay with
 * jitter, loss, duplication, reordering. Here it becomes a {@link FaultPlan} of the transport's fault
 * layer, applied to a node's outbound messages.
 */
public record PacketBehavior(long delayMillis, long jitterMillis, double lossPercent, double duplicatePercent, double reorderPercent) {
    public PacketBehavior {
        if (delayMillis < 0 || jitterMillis < 0) throw new IllegalArgumentException("delay and jitter must be >= 0");
        for (double p : new double[] {lossPercent, duplicatePercent, reorderPercent}) {
            if (p < 0 || p > 100) throw new IllegalArgumentException("percentages must be in [0, 100]");
        }
    }

    public FaultPlan plan() {
        return FaultPlan.NONE.withDelay(Duration.ofMillis(delayMillis), Duration.ofMillis(jitterMillis))
                .withLoss(lossPercent / 100).withDuplication(duplicatePercent / 100).withReordering(reorderPercent / 100);
    }

    /** The behaviour as the nemesis op's value, in Jepsen's shape ({@code {:delay {:time-ms 50 :jitter-ms 10}}}). */
    public Map<Object, Object> toEdn() {
        Map<Object, Object> m = new LinkedHashMap<>();
        if (delayMillis > 0 || jitterMillis > 0) {
            Map<Object, Object> d = new LinkedHashMap<>();
            d.put(Keyword.of("time-ms"), delayMillis);
            d.put(Keyword.of("jitter-ms"), jitterMillis);
            m.put(Keyword.of("delay"), d);
        }
        if (lossPercent > 0) m.put(Keyword.of("loss"), Map.of(Keyword.of("percent"), lossPercent));
        if (duplicatePercent > 0) m.put(Keyword.of("duplicate"), Map.of(Keyword.of("percent"), duplicatePercent));
        if (reorderPercent > 0) m.put(Keyword.of("reorder"), Map.of(Keyword.of("percent"), reorderPercent));
        return m;
    }
}
