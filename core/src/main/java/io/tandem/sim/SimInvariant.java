package io.tandem.sim;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A safety property the simulator checks after every step of a run (election safety, committed
 * prefix agreement, ...). It reads the engines through the {@link SimCluster} view and must not
 * change them. It should be cheap: it runs after each of the hundreds of thousands of events.
 */
public interface SimInvariant {
    /** A short name for reports, e.g. "one-primary-per-view". */
    String name();

    /** An explanation of the violation, or empty if the property holds. */
    Optional<String> check(SimCluster cluster);

    static SimInvariant of(String name, Function<SimCluster, Optional<String>> check) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(check, "check");
        return new SimInvariant() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Optional<String> check(SimCluster cluster) {
                return check.apply(cluster);
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }
}
