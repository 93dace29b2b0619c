package io.tandem.sim.cost;

import java.util.Arrays;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * A measured latency distribution kept as its quantiles: sampling draws a uniform quantile and
 * interpolates linearly between the two measured points around it (inverse-CDF sampling), so the
 * simulator reproduces the measured shape, tail included, without assuming a family of
 * distributions. The text form is {@code q:nanos,q:nanos,...} with q from 0 to 1.
 */
public final class Distribution {
    private final double[] quantiles;
    private final long[] nanos;

    private Distribution(double[] quantiles, long[] nanos) {
        if (quantiles.length < 1 || quantiles.length != nanos.length) throw new IllegalArgumentException("a distribution needs at least one point");
        if (quantiles[0] != 0 || quantiles[quantiles.length - 1] != 1) {
            if (quantiles.length != 1) throw new IllegalArgumentException("quantiles must run from 0 to 1");
        }
        for (int i = 1; i < quantiles.length; i++) {
            if (!(quantiles[i] > quantiles[i - 1]) || nanos[i] < nanos[i - 1]) {
                throw new IllegalArgumentException("quantiles and values must both increase, at point " + i);
            }
        }
        for (long n : nanos) if (n < 0) throw new IllegalArgumentException("latencies must be >= 0");
        this.quantiles = quantiles;
        this.nanos = nanos;
    }

    /** Always {@code nanos}. */
    public static Distribution fixed(long nanos) {
        return new Distribution(new double[] {1}, new long[] {nanos});
    }

    /** The empirical distribution of {@code samples} (any order), kept at {@code points} evenly spaced quantiles plus the extremes' tail. */
    public static Distribution ofSamples(long[] samples) {
        if (samples.length == 0) throw new IllegalArgumentException("no samples");
        long[] sorted = samples.clone();
        Arrays.sort(sorted);
        double[] qs = {0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1};
        long[] vs = new long[qs.length];
        for (int i = 0; i < qs.length; i++) vs[i] = sorted[(int) Math.min(sorted.length - 1, Math.round(qs[i] * (sorted.length - 1)))];
        // Equal quantile values at distinct quantiles are allowed (a step); strictly increasing quantiles are what matters.
        return new Distribution(qs, vs);
    }

    public static Distribution parse(String text) {
        try {
            String[] parts = text.trim().split(",");
            if (parts.length == 1 && !parts[0].contains(":")) return fixed(Long.parseLong(parts[0].trim()));
            double[] q = new double[parts.length];
            long[] v = new long[parts.length];
            for (int i = 0; i < parts.length; i++) {
                String[] kv = parts[i].trim().split(":");
                if (kv.length != 2) throw new IllegalArgumentException("'" + parts[i] + "' is not q:nanos");
                q[i] = Double.parseDouble(kv[0]);
                v[i] = Long.parseLong(kv[1]);
            }
            return new Distribution(q, v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid distribution '" + text + "': " + e.getMessage(), e);
        }
    }

    public long sample(RandomGenerator random) {
        if (nanos.length == 1) return nanos[0];
        double u = random.nextDouble();
        int i = Arrays.binarySearch(quantiles, u);
        if (i >= 0) return nanos[i];
        int hi = -i - 1;
        int lo = hi - 1;
        double f = (u - quantiles[lo]) / (quantiles[hi] - quantiles[lo]);
        return nanos[lo] + Math.round(f * (nanos[hi] - nanos[lo]));
    }

    /** The value at quantile {@code q} (interpolated). */
    public long quantile(double q) {
        if (nanos.length == 1) return nanos[0];
        int i = Arrays.binarySearch(quantiles, q);
        if (i >= 0) return nanos[i];
        int hi = -i - 1;
        int lo = hi - 1;
        double f = (q - quantiles[lo]) / (quantiles[hi] - quantiles[lo]);
        return nanos[lo] + Math.round(f * (nanos[hi] - nanos[lo]));
    }

    /** This distribution less {@code nanos} at every quantile, down to 0 (a latency of which a part is paid elsewhere). */
    public Distribution minus(long nanos) {
        if (nanos < 0) throw new IllegalArgumentException("negative amount");
        long[] v = new long[this.nanos.length];
        for (int i = 0; i < v.length; i++) v[i] = Math.max(0, this.nanos[i] - nanos);
        return new Distribution(quantiles.clone(), v);
    }

    /** The mean of the piecewise-linear distribution. */
    public double mean() {
        if (nanos.length == 1) return nanos[0];
        double sum = 0;
        for (int i = 1; i < nanos.length; i++) sum += (quantiles[i] - quantiles[i - 1]) * (nanos[i] + nanos[i - 1]) / 2.0;
        return sum;
    }

    public String format() {
        if (nanos.length == 1) return Long.toString(nanos[0]);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < nanos.length; i++) {
            if (i > 0) b.append(',');
            b.append(String.format(Locale.ROOT, "%s:%d", trim(quantiles[i]), nanos[i]));
        }
        return b.toString();
    }

    private static String trim(double q) {
        String s = String.format(Locale.ROOT, "%.4f", q);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    @Override
    public String toString() {
        return format();
    }
}
