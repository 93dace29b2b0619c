import java.io.*;
import java.net.*;
import java.util.*;

/**
 * Lead s25: the floor of one loopback TCP round trip on this VM between two JVMs, each side a blocking socket read
 * (a thread that parks and is woken, as every hand-off in a replication round is). Usage:
 *   java PingPong.java server PORT        (echoes each 64-byte message back)
 *   java PingPong.java client PORT SECONDS (one message outstanding; prints p50/p90/p99/mean in µs after 5 s of warm-up)
 */
public class PingPong {
    public static void main(String[] a) throws Exception {
        int port = Integer.parseInt(a[1]);
        byte[] buf = new byte[64];
        if (a[0].equals("server")) {
            try (ServerSocket ss = new ServerSocket(port, 1, InetAddress.getLoopbackAddress()); Socket s = ss.accept()) {
                s.setTcpNoDelay(true);
                DataInputStream in = new DataInputStream(s.getInputStream()); OutputStream out = s.getOutputStream();
                while (true) { in.readFully(buf); out.write(buf); }
            } catch (EOFException done) { return; }
        }
        int seconds = Integer.parseInt(a[2]);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(s.getInputStream()); OutputStream out = s.getOutputStream();
            long warmEnd = System.nanoTime() + 5_000_000_000L, end = warmEnd + seconds * 1_000_000_000L;
            long[] rtt = new long[4_000_000]; int n = 0;
            for (long now = System.nanoTime(); now < end; ) {
                out.write(buf); in.readFully(buf);
                long t = System.nanoTime();
                if (now >= warmEnd && n < rtt.length) rtt[n++] = t - now;
                now = t;
            }
            long[] r = Arrays.copyOf(rtt, n); Arrays.sort(r);
            double mean = Arrays.stream(r).average().orElse(0) / 1e3;
            System.out.printf(Locale.ROOT, "round trips %d  p50 %.1f us  p90 %.1f  p99 %.1f  mean %.1f us%n", n, r[n / 2] / 1e3, r[n * 9 / 10] / 1e3, r[n * 99 / 100] / 1e3, mean);
        }
    }
}
