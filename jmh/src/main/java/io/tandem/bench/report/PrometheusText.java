package io.tandem.bench.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A parsed Prometheus text exposition (format 0.0.4), as a server's {@code /metrics} endpoint
 * answers: one sample per line, {@code name{label="value",...} value [timestamp]}; {@code #}
 * lines are comments.
 */
public record PrometheusText(List<Sample> samples) {
    /** One sample: metric name, labels and value. */
    public record Sample(String name, Map<String, String> labels, double value) {
        public Sample {
            labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
        }

        public String label(String key) {
            return labels.get(key);
        }
    }

    public PrometheusText {
        samples = List.copyOf(samples);
    }

    public static PrometheusText parse(String text) {
        List<Sample> samples = new ArrayList<>();
        int lineNo = 0;
        for (String raw : text.split("\n")) {
            lineNo++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            try {
                samples.add(parseLine(line));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("metrics line " + lineNo + " is malformed: '" + line + "' (" + e.getMessage() + ")", e);
            }
        }
        return new PrometheusText(samples);
    }

    private static Sample parseLine(String line) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ' && line.charAt(i) != '\t') i++;
        String name = line.substring(0, i);
        if (name.isEmpty()) throw new IllegalArgumentException("no metric name");
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (true) {
                while (i < line.length() && (line.charAt(i) == ' ' || line.charAt(i) == ',')) i++;
                if (i >= line.length()) throw new IllegalArgumentException("unterminated labels");
                if (line.charAt(i) == '}') {
                    i++;
                    break;
                }
                int eq = line.indexOf('=', i);
                if (eq < 0) throw new IllegalArgumentException("label without '='");
                String key = line.substring(i, eq).strip();
                i = eq + 1;
                if (i >= line.length() || line.charAt(i) != '"') throw new IllegalArgumentException("label value not quoted");
                i++;
                StringBuilder value = new StringBuilder();
                while (true) {
                    if (i >= line.length()) throw new IllegalArgumentException("unterminated label value");
                    char c = line.charAt(i++);
                    if (c == '"') break;
                    if (c == '\\' && i < line.length()) {
                        char e = line.charAt(i++);
                        value.append(switch (e) {
                            case 'n' -> '\n';
                            case '\\' -> '\\';
                            case '"' -> '"';
                            default -> throw new IllegalArgumentException("unknown escape \\" + e);
                        });
                    } else {
                        value.append(c);
                    }
                }
                labels.put(key, value.toString());
            }
        }
        String[] rest = line.substring(i).strip().split("[ \t]+");
        if (rest.length == 0 || rest[0].isEmpty()) throw new IllegalArgumentException("no value");
        return new Sample(name, labels, parseValue(rest[0]));
    }

    private static double parseValue(String text) {
        return switch (text) {
            case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(text);
        };
    }

    /** The sum of every sample named {@code name} whose labels satisfy {@code filter}; 0 if there is none. */
    public double sum(String name, Predicate<Map<String, String>> filter) {
        double s = 0;
        for (Sample x : samples) if (x.name.equals(name) && filter.test(x.labels)) s += x.value;
        return s;
    }

    /** The sum of every sample named {@code name}; 0 if there is none. */
    public double sum(String name) {
        return sum(name, l -> true);
    }

    /** Whether some sample is named {@code name}. */
    public boolean has(String name) {
        for (Sample x : samples) if (x.name.equals(name)) return true;
        return false;
    }

    /** The sums of {@code name} grouped by the value of {@code label} (samples without it are skipped). */
    public Map<String, Double> sumBy(String name, String label) {
        Map<String, Double> sums = new LinkedHashMap<>();
        for (Sample x : samples) {
            if (!x.name.equals(name)) continue;
            String v = x.labels.get(label);
            if (v != null) sums.merge(v, x.value, Double::sum);
        }
        return sums;
    }
}
