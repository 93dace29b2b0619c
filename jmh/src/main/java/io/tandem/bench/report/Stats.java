package io.tandem.bench.report;

import java.util.Arrays;
import java.util.Collection;

/** Small statistics for benchmark summaries; NaN stands for "no data" and is skipped. */
public final class Stats {
    private Stats() {}

    /** The median of the non-NaN values (the mean of the middle two for an even count); NaN if there are none. */
    public static double median(Collection<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).filter(d -> !Double.isNaN(d)).sorted().toArray();
        if (v.length == 0) return Double.NaN;
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    public static double median(double... values) {
        return median(Arrays.stream(values).boxed().toList());
    }

    /** {@code 100 * value / reference}: the value as a percentage of the reference; NaN if either is missing or the reference is 0. */
    public static double percentOf(double value, double reference) {
        if (Double.isNaN(value) || Double.isNaN(reference) || reference == 0) return Double.NaN;
        return 100 * value / reference;
    }

    /**
     * The least-squares slope of {@code y} over {@code x} (per unit of x); NaN with fewer than two
     * points or when every x is the same. Pairs with a NaN in either coordinate are skipped.
     */
    public static double slope(double[] x, double[] y) {
        if (x.length != y.length) throw new IllegalArgumentException("x has " + x.length + " values, y has " + y.length);
        int n = 0;
        double sx = 0, sy = 0;
        for (int i = 0; i < x.length; i++) {
            if (Double.isNaN(x[i]) || Double.isNaN(y[i])) continue;
            n++;
            sx += x[i];
            sy += y[i];
        }
        if (n < 2) return Double.NaN;
        double mx = sx / n, my = sy / n;
        double sxx = 0, sxy = 0;
        for (int i = 0; i < x.length; i++) {
            if (Double.isNaN(x[i]) || Double.isNaN(y[i])) continue;
            sxx += (x[i] - mx) * (x[i] - mx);
            sxy += (x[i] - mx) * (y[i] - my);
        }
        return sxx == 0 ? Double.NaN : sxy / sxx;
    }

    /** The mean of the non-NaN values; NaN if there are none. */
    public static double mean(double... values) {
        return Arrays.stream(values).filter(d -> !Double.isNaN(d)).average().orElse(Double.NaN);
    }

    /** The largest non-NaN value; NaN if there are none. */
    public static double max(double... values) {
        return Arrays.stream(values).filter(d -> !Double.isNaN(d)).max().orElse(Double.NaN);
    }
}
