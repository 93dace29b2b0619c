package io.tandem.examples;

import io.tandem.api.Channel;
import io.tandem.api.Message;
import io.tandem.api.Receiver;
import io.tandem.api.Tandem;
import io.tandem.api.View;
import io.tandem.protocols.Protocols;
import io.tandem.protocols.vsync.VsyncConfig;
import io.tandem.transport.LocalNetwork;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Group chat over virtual synchrony (Derecho's ordered multicast through an SST): every member
 * sends, every member receives every message in the same order; when a member leaves, the others
 * install a new view after delivering the same messages of the old one.
 */
public final class VirtualSynchronyChat {
    private VirtualSynchronyChat() {}

    public static void main(String[] args) throws Exception {
        run(System.out);
    }

    /** Answers what each remaining member received, in order, and prints the views they saw. */
    public static Map<String, List<String>> run(PrintStream out) throws Exception {
        String[] members = {"n1", "n2", "n3"};
        LocalNetwork network = LocalNetwork.of(Protocols.virtualSynchrony(), members);
        Map<String, List<String>> received = new TreeMap<>();
        Map<String, Channel> channels = new TreeMap<>();
        try {
            for (String id : members) {
                List<String> log = Collections.synchronizedList(new ArrayList<>());
                received.put(id, log);
                // README-BEGIN vsync-chat
                VsyncConfig config = VsyncConfig.DEFAULTS.withTimers(Duration.ofMillis(20), Duration.ofMillis(300),
                        Duration.ofMillis(200), Duration.ZERO); // heartbeat, suspicion, join retry, no automatic rejoin
                Channel ch = Tandem.channel().id(id).members(members).protocol(Protocols.virtualSynchrony(config))
                        .transport(network.factory()).inMemoryStorage()
                        .connect(new Receiver() {
                            @Override
                            public void receive(Message msg) {       // total order, once every member holds it
                                log.add(msg.src() + ": " + msg.text());
                            }

                            @Override
                            public void viewAccepted(View view) {    // after the old view's messages, the same on every member
                                out.println(id + " sees view " + view);
                            }
                        });
                // README-END vsync-chat
                channels.put(id, ch);
            }
            for (Channel ch : channels.values()) ch.send("hello from " + ch.address()).join();
            channels.remove("n3").close(); // n3 leaves: the others suspect it, wedge, trim and install a view without it
            for (Channel ch : channels.values()) ch.send("bye from " + ch.address()).join();
            received.remove("n3");
            // n1 and n2 each deliver five messages: three hellos and two byes. A send completes when its
            // message is delivered at its sender; the other member delivers it a moment later, on its own thread.
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (received.values().stream().anyMatch(l -> l.size() < 5) && System.nanoTime() < deadline) java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            received.forEach((id, log) -> out.println(id + " received " + log));
            return received;
        } finally {
            for (Channel ch : channels.values()) ch.close();
        }
    }
}
