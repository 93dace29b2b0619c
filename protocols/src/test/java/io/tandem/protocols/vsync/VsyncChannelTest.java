package io.tandem.protocols.vsync;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.api.Channel;
import io.tandem.api.Message;
import io.tandem.api.OverloadedException;
import io.tandem.api.Receiver;
import io.tandem.api.Tandem;
import io.tandem.api.View;
import io.tandem.protocols.Protocols;
import io.tandem.testing.Await;
import io.tandem.transport.LocalNetwork;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The protocol on the real runtime through the channel API (DESIGN §4): every member's receiver
 * gets every message in one total order, views reach {@code viewAccepted}, and a sender that runs
 * ahead of its window and its queue is refused with {@link OverloadedException} (back-pressure)
 * instead of queueing without bound.
 */
class VsyncChannelTest {
    @Test
    void everyReceiverGetsTheSameOrderAndASenderPastItsWindowIsRefused() throws Exception {
        String[] ids = {"n1", "n2", "n3"};
        VsyncConfig config = VsyncConfig.DEFAULTS.withWindow(2, 128).withMaxQueuedSends(4);
        LocalNetwork network = LocalNetwork.of(Protocols.virtualSynchrony(config), ids);
        Map<String, List<String>> received = new TreeMap<>();
        Map<String, List<Long>> views = new TreeMap<>();
        List<Channel> channels = new ArrayList<>();
        try {
            for (String id : ids) {
                List<String> log = Collections.synchronizedList(new ArrayList<>());
                List<Long> seen = Collections.synchronizedList(new ArrayList<>());
                received.put(id, log);
                views.put(id, seen);
                channels.add(Tandem.channel().id(id).members(ids).protocol(Protocols.virtualSynchrony(config)).transport(network.factory()).inMemoryStorage()
                        .connect(new Receiver() {
                            @Override
                            public void receive(Message msg) {
                                log.add(msg.text());
                            }

                            @Override
                            public void viewAccepted(View view) {
                                seen.add(view.id());
                            }
                        }));
            }
            List<CompletableFuture<Long>> sends = new ArrayList<>();
            for (int i = 0; i < 200; i++) sends.add(channels.get(i % 3).send("m" + i));
            int accepted = 0;
            int refused = 0;
            for (CompletableFuture<Long> f : sends) {
                try {
                    f.join();
                    accepted++;
                } catch (CompletionException e) {
                    assertThat(e.getCause()).isInstanceOf(OverloadedException.class);
                    refused++;
                }
            }
            int total = accepted;
            assertThat(refused).as("a burst of 200 against a window of 2 and a queue of 4 per member").isPositive();
            Await.until(Duration.ofSeconds(30), () -> received.values().stream().allMatch(l -> l.size() == total), () -> "deliveries: " + received);
            assertThat(received.get("n2")).isEqualTo(received.get("n1"));
            assertThat(received.get("n3")).isEqualTo(received.get("n1"));
            assertThat(views.get("n1")).containsExactly(1L);
        } finally {
            for (Channel ch : channels) ch.close();
        }
    }

    /** RAW delivery (derecho.md §4.5): every message reaches every member, in each sender's order, without waiting for stability. */
    @Test
    void rawDeliveryKeepsEachSendersOrderAndLosesNothing() throws Exception {
        String[] ids = {"n1", "n2", "n3"};
        VsyncConfig config = VsyncConfig.DEFAULTS.withDelivery(VsyncConfig.Delivery.RAW);
        LocalNetwork network = LocalNetwork.of(Protocols.virtualSynchrony(config), ids);
        Map<String, List<String>> received = new TreeMap<>();
        List<Channel> channels = new ArrayList<>();
        try {
            for (String id : ids) {
                List<String> log = Collections.synchronizedList(new ArrayList<>());
                received.put(id, log);
                channels.add(Tandem.channel().id(id).members(ids).protocol(Protocols.virtualSynchrony(config)).transport(network.factory()).inMemoryStorage()
                        .connect(new Receiver() {
                            @Override
                            public void receive(Message msg) {
                                log.add(msg.text());
                            }
                        }));
            }
            List<CompletableFuture<Long>> sends = new ArrayList<>();
            for (int i = 0; i < 30; i++) sends.add(channels.get(i % 3).send((i % 3) + ":" + i));
            for (CompletableFuture<Long> f : sends) f.join();
            Await.until(Duration.ofSeconds(30), () -> received.values().stream().allMatch(l -> l.size() == 30), () -> "deliveries: " + received);
            for (List<String> log : received.values()) {
                for (int sender = 0; sender < 3; sender++) {
                    String prefix = sender + ":";
                    List<String> fromSender = log.stream().filter(m -> m.startsWith(prefix)).toList();
                    List<String> expected = new ArrayList<>();
                    for (int i = sender; i < 30; i += 3) expected.add(prefix + i);
                    assertThat(fromSender).isEqualTo(expected);
                }
            }
        } finally {
            for (Channel ch : channels) ch.close();
        }
    }
}
