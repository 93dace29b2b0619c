package io.tandem.bench.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Describes where a path's files are stored, for the benchmark's conditions. */
public final class FileStores {
    private FileStores() {}

    /** {@code ", <type> <device>"} of the file system holding {@code path}, or empty if unknown. */
    public static String describe(Path path) {
        try {
            Path p = path;
            while (p != null && !Files.exists(p)) p = p.getParent();
            if (p == null) return "";
            var store = Files.getFileStore(p);
            return ", " + store.type() + " " + store.name();
        } catch (IOException e) {
            return "";
        }
    }
}
