package io.tandem.transport.tcp;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Captures what the logger (slf4j-simple, which writes to the current {@code System.err}) prints
 * while open, still passing it through; for tests that assert the reason a refusal logs.
 */
final class CapturedLog implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    CapturedLog() {
        OutputStream tee = new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (captured) {
                    captured.write(b);
                }
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (captured) {
                    captured.write(b, off, len);
                }
                original.write(b, off, len);
            }
        };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    List<String> lines() {
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8).lines().toList();
        }
    }

    /** The lines containing every one of {@code parts}. */
    List<String> linesWith(String... parts) {
        return lines().stream().filter(l -> {
            for (String p : parts) if (!l.contains(p)) return false;
            return true;
        }).toList();
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
