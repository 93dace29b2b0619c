package io.tandem.kv.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** Ports that were free a moment ago, for servers that must be told their port up front. */
public final class FreePorts {
    private FreePorts() {}

    /** {@code n} distinct ports the kernel handed out as ephemeral ones (then released). */
    public static List<Integer> take(int n) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(s);
                ports.add(s.getLocalPort());
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing a listening socket does not fail in a way that matters here
                }
            }
        }
    }

    /**
     * A base port such that base .. base + count - 1 and the same ranges 1000 and 2000 above are all
     * free (the local cluster's layout), searched below the ephemeral range.
     */
    public static int baseForLocalCluster(int count) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = 12_000 + ThreadLocalRandom.current().nextInt(18_000);
            if (allFree(base, count) && allFree(base + 1000, count) && allFree(base + 2000, count)) return base;
        }
        throw new IllegalStateException("no free port range found");
    }

    private static boolean allFree(int from, int count) {
        for (int p = from; p < from + count; p++) {
            try (ServerSocket s = new ServerSocket(p, 1, InetAddress.getLoopbackAddress())) {
                s.setReuseAddress(true);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
