package io.tandem.jepsen.store;

import io.tandem.history.EdnWriter;
import io.tandem.history.History;
import io.tandem.history.Op;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * Jepsen's store layout: {@code <root>/<test>/<yyyyMMdd'T'HHmmss.SSSZ>/} with {@code history.edn} (one
 * {@code prn}-ed op per line), {@code history.txt}, {@code results.edn}, {@code test.edn}, a directory
 * per node with its log, the reports, and symlinks {@code <root>/latest} and {@code <root>/<test>/latest}.
 */
public final class Store {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSSZ");
    private final Path dir;

    private Store(Path dir) {
        this.dir = dir;
    }

    /** Creates the directory of a new run of {@code test} and points the {@code latest} links at it. */
    public static Store create(Path root, String test) {
        Path testDir = root.resolve(test);
        Path dir = testDir.resolve(STAMP.format(ZonedDateTime.now()));
        try {
            Files.createDirectories(dir);
            relink(root.resolve("latest"), root.relativize(dir));
            relink(testDir.resolve("latest"), testDir.relativize(dir));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the store directory " + dir, e);
        }
        return new Store(dir);
    }

    private static void relink(Path link, Path target) throws IOException {
        Files.deleteIfExists(link);
        try {
            Files.createSymbolicLink(link, target);
        } catch (UnsupportedOperationException | IOException e) {
            // a file system without symlinks: the timestamped directory is still there
        }
    }

    public Path dir() {
        return dir;
    }

    public Path file(String name) {
        return dir.resolve(name);
    }

    /** history.edn and history.txt. */
    public void writeHistory(History history) {
        try {
            history.write(file("history.edn"));
            try (BufferedWriter w = Files.newBufferedWriter(file("history.txt"), StandardCharsets.UTF_8)) {
                for (Op op : history.ops()) {
                    w.write(EdnWriter.toEdn(op.process()));
                    w.write('\t');
                    w.write(EdnWriter.toEdn(op.type().keyword()));
                    w.write('\t');
                    w.write(EdnWriter.toEdn(op.f()));
                    w.write('\t');
                    w.write(EdnWriter.toEdn(op.value()));
                    if (op.error() != null) {
                        w.write('\t');
                        w.write(EdnWriter.toEdn(op.error()));
                    }
                    w.write('\n');
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the history into " + dir, e);
        }
    }

    /** Writes an EDN map, one top-level entry per line (nested maps one entry per line too, indented). */
    public void writeEdn(String name, Map<?, ?> map) {
        write(name, pretty(map, 0, 0) + "\n");
    }

    public void write(String name, String text) {
        try {
            Files.writeString(file(name), text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file(name), e);
        }
    }

    static String pretty(Object value, int indent, int depth) {
        if (!(value instanceof Map<?, ?> m) || m.isEmpty() || depth > 2) return EdnWriter.toEdn(value);
        StringBuilder s = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!first) s.append(",\n").append(" ".repeat(indent + 1));
            first = false;
            String key = EdnWriter.toEdn(e.getKey());
            s.append(key).append(' ');
            s.append(pretty(e.getValue(), indent + key.length() + 2, depth + 1));
        }
        return s.append('}').toString();
    }

    /** Convenience for tests and the console: the store-relative path of a file. */
    public List<String> files() {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
