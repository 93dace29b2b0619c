package io.tandem.bench.report;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;

/**
 * A CSV file (RFC 4180: comma separated, CRLF-free, fields quoted when they contain a comma, quote
 * or line break) with a fixed header. Rows are flushed as they are written, so a benchmark that is
 * interrupted keeps the rows it finished. Numbers are written with {@link Locale#ROOT}; NaN becomes
 * an empty field.
 */
public final class Csv implements AutoCloseable {
    private final BufferedWriter out;
    private final int columns;

    private Csv(BufferedWriter out, int columns) {
        this.out = out;
        this.columns = columns;
    }

    /** Creates (or replaces) {@code file} and writes the header. */
    public static Csv create(Path file, List<String> header) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Csv csv = new Csv(Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE), header.size());
            csv.row(header.toArray());
            return csv;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes one row; it must have as many fields as the header. */
    public synchronized void row(Object... fields) {
        if (fields.length != columns) throw new IllegalArgumentException("row has " + fields.length + " fields, header has " + columns);
        try {
            out.write(line(fields));
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One CSV line (without the line break) for {@code fields}. */
    public static String line(Object... fields) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) s.append(',');
            s.append(escape(format(fields[i])));
        }
        return s.toString();
    }

    /** Formats one field: null and NaN are empty, doubles get at most 3 decimals without trailing zeros. */
    public static String format(Object field) {
        return switch (field) {
            case null -> "";
            case Double d when d.isNaN() || d.isInfinite() -> "";
            case Double d -> trim(String.format(Locale.ROOT, "%.3f", d));
            case Float f -> format(f.doubleValue());
            default -> field.toString();
        };
    }

    private static String trim(String decimal) {
        if (decimal.indexOf('.') < 0) return decimal;
        int end = decimal.length();
        while (decimal.charAt(end - 1) == '0') end--;
        if (decimal.charAt(end - 1) == '.') end--;
        String t = decimal.substring(0, end);
        return t.equals("-0") ? "0" : t;
    }

    /** The fields of one CSV line as {@link #line} writes them (quoted fields with doubled quotes inside; no line breaks). */
    public static java.util.List<String> fields(String line) {
        java.util.List<String> out = new java.util.ArrayList<>();
        StringBuilder f = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c != '"') f.append(c);
                else if (i + 1 < line.length() && line.charAt(i + 1) == '"') f.append(line.charAt(++i));
                else quoted = false;
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                out.add(f.toString());
                f.setLength(0);
            } else {
                f.append(c);
            }
        }
        out.add(f.toString());
        return out;
    }

    /** Quotes a field that needs it, doubling quotes inside. */
    public static String escape(String field) {
        boolean quote = field.indexOf(',') >= 0 || field.indexOf('"') >= 0 || field.indexOf('\n') >= 0 || field.indexOf('\r') >= 0;
        return quote ? '"' + field.replace("\"", "\"\"") + '"' : field;
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
