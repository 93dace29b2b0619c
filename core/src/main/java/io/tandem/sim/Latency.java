package io.tandem.sim;

import java.util.random.RandomGenerator;

/**
 * A distribution of delays (network one-way latency, disk write latency), sampled from the
 * simulation's seeded random source. The text form ({@code fixed:1ms}, {@code uniform:100us:2ms},
 * {@code exp:100us:1ms}) is what the CLI accepts and what a failing seed prints.
 */
public sealed interface Latency {
    long sample(RandomGenerator random);

    long meanNanos();

    String format();

    record Fixed(long nanos) implements Latency {
        public Fixed {
            if (nanos < 0) throw new IllegalArgumentException("latency must be >= 0");
        }

        @Override
        public long sample(RandomGenerator random) {
            return nanos;
        }

        @Override
        public long meanNanos() {
            return nanos;
        }

        @Override
        public String format() {
            return "fixed:" + SimTime.format(nanos);
        }
    }

    /** Uniform in [min, max]. */
    record Uniform(long minNanos, long maxNanos) implements Latency {
        public Uniform {
            if (minNanos < 0 || maxNanos < minNanos) throw new IllegalArgumentException("uniform latency needs 0 <= min <= max");
        }

        @Override
        public long sample(RandomGenerator random) {
            return minNanos == maxNanos ? minNanos : random.nextLong(minNanos, maxNanos + 1);
        }

        @Override
        public long meanNanos() {
            return (minNanos + maxNanos) / 2;
        }

        @Override
        public String format() {
            return "uniform:" + SimTime.format(minNanos) + ":" + SimTime.format(maxNanos);
        }
    }

    /**
     * {@code min} plus an exponential tail, so that most samples are near the mean and a few are
     * much slower (the shape of real network and disk latency); capped at 50 times the mean to keep
     * runs bounded.
     */
    record Exponential(long minNanos, long meanNanos) implements Latency {
        public Exponential {
            if (minNanos < 0 || meanNanos < minNanos) throw new IllegalArgumentException("exponential latency needs 0 <= min <= mean");
        }

        @Override
        public long sample(RandomGenerator random) {
            long tailMean = meanNanos - minNanos;
            if (tailMean == 0) return minNanos;
            double tail = random.nextExponential() * tailMean;
            return minNanos + (long) Math.min(tail, 50.0 * meanNanos);
        }

        @Override
        public String format() {
            return "exp:" + SimTime.format(minNanos) + ":" + SimTime.format(meanNanos);
        }
    }

    static Latency parse(String text) {
        String[] parts = text.trim().split(":");
        try {
            return switch (parts[0]) {
                case "fixed" -> {
                    if (parts.length != 2) throw new IllegalArgumentException("fixed:<d>");
                    yield new Fixed(SimTime.parse(parts[1]));
                }
                case "uniform" -> {
                    if (parts.length != 3) throw new IllegalArgumentException("uniform:<min>:<max>");
                    yield new Uniform(SimTime.parse(parts[1]), SimTime.parse(parts[2]));
                }
                case "exp" -> {
                    if (parts.length != 3) throw new IllegalArgumentException("exp:<min>:<mean>");
                    yield new Exponential(SimTime.parse(parts[1]), SimTime.parse(parts[2]));
                }
                default -> throw new IllegalArgumentException("unknown distribution '" + parts[0] + "'");
            };
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid latency '" + text + "' (" + e.getMessage() + "): use fixed:1ms, uniform:100us:2ms or exp:100us:1ms", e);
        }
    }
}
