package io.tandem.examples;

import io.tandem.api.Channel;
import io.tandem.api.Message;
import io.tandem.api.Receiver;
import io.tandem.api.Tandem;
import io.tandem.api.View;
import io.tandem.protocols.Protocols;
import io.tandem.transport.LocalNetwork;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A JGroups-style channel: every member sends, every member's receiver gets every message in one order. */
public final class ChannelChat {
    private ChannelChat() {}

    public static void main(String[] args) throws Exception {
        run(System.out);
    }

    /** Answers what each member received, in order. */
    public static Map<String, List<String>> run(PrintStream out) throws Exception {
        String[] members = {"n1", "n2", "n3"};
        LocalNetwork network = LocalNetwork.of(Protocols.raft(), members);   // in-JVM; TcpTransport.defaults() across processes
        Map<String, List<String>> received = new TreeMap<>();
        List<Channel> channels = new ArrayList<>();
        try {
            for (String id : members) {
                List<String> log = Collections.synchronizedList(new ArrayList<>());
                received.put(id, log);
                // README-BEGIN channel
                Channel ch = Tandem.channel().id(id).members(members).protocol(Protocols.raft())
                        .transport(network.factory()).inMemoryStorage()
                        .connect(new Receiver() {
                            @Override
                            public void receive(Message msg) {
                                log.add(msg.src() + ": " + msg.text());
                            }

                            @Override
                            public void viewAccepted(View view) {
                                out.println(id + " sees view " + view);
                            }
                        });
                // README-END channel
                channels.add(ch);
            }
            for (Channel ch : channels) ch.send("hello from " + ch.address()).join(); // each send is ordered once it returns
            for (Channel ch : channels) ch.send("bye from " + ch.address()).join();
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (received.values().stream().anyMatch(l -> l.size() < 6) && System.nanoTime() < deadline) java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            received.forEach((id, log) -> out.println(id + " received " + log));
            return received;
        } finally {
            for (Channel ch : channels) ch.close();
        }
    }
}
