package io.tandem.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import io.tandem.kv.KvCodec;
import io.tandem.kv.KvCommand;
import io.tandem.kv.KvException;
import io.tandem.kv.KvLimits;
import io.tandem.kv.KvResult;
import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.KvRejectedException;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.ErrorCode;
import io.tandem.kv.net.MembershipChange;
import io.tandem.kv.net.NodeStatus;
import io.tandem.kv.net.Request;
import io.tandem.kv.net.Response;
import io.tandem.kv.testing.InJvmCluster;
import io.tandem.kv.testing.RawClient;
import io.tandem.testing.Await;
import io.tandem.transport.FaultPlan;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's client protocol over real TCP, with a three-node Raft cluster in this JVM: every
 * request type, leader hints, sessions, admin requests, bad frames, metrics.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KvServerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final KvCodec codec = new KvCodec(KvLimits.DEFAULTS);

    private InJvmCluster cluster;

    @BeforeAll
    void startCluster(@TempDir Path dir) {
        cluster = InJvmCluster.start(dir, 3, Map.of("fault-injection", "true"));
        cluster.awaitLeader(WAIT);
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) cluster.close();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void statusReportsRoleLeaderIndexesAndMembers() {
        int leader = cluster.awaitLeader(WAIT);
        String leaderId = InJvmCluster.id(leader);
        for (int i = 0; i < cluster.size(); i++) {
            NodeStatus s = cluster.server(i).status();
            assertThat(s.node()).isEqualTo(InJvmCluster.id(i));
            assertThat(s.role()).isEqualTo(i == leader ? "LEADER" : "FOLLOWER");
            assertThat(s.leader()).isEqualTo(leaderId);
            assertThat(s.leaderClientAddress()).isEqualTo(cluster.clientAddress(leader).toString());
            assertThat(s.protocol()).isEqualTo("raft");
            assertThat(s.cluster()).isEqualTo("test");
            assertThat(s.epoch()).isPositive();
            assertThat(s.pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(s.faultInjection()).isTrue();
            assertThat(s.members()).extracting(NodeStatus.Member::id).containsExactly("n1", "n2", "n3");
            assertThat(s.members().get(2).clientAddress()).isEqualTo(cluster.clientAddress(2).toString());
        }
        try (TandemKvClient client = cluster.client()) {
            NodeStatus remote = client.status(cluster.clientAddress(leader));
            assertThat(remote.isLeader()).isTrue();
            assertThat(remote.voters()).containsExactly("n1", "n2", "n3");
            assertThat(remote.learners()).isEmpty();
            client.put(b("status-key"), b("v"));
            long commit = client.status(cluster.clientAddress(leader)).commitIndex();
            Await.until(WAIT, () -> cluster.server(leader).status().appliedIndex() >= commit);
            // The leader tracks how far behind each follower is; once they caught up, nobody lags.
            Set<String> followers = Set.of("n1", "n2", "n3").stream().filter(n -> !n.equals(leaderId)).collect(java.util.stream.Collectors.toSet());
            Await.until(WAIT, () -> {
                NodeStatus now = client.status(cluster.clientAddress(leader));
                return now.lag().keySet().equals(followers) && now.lag().values().stream().allMatch(l -> l == 0);
            }, () -> "leader status " + client.status(cluster.clientAddress(leader)));
            assertThat(client.status(cluster.clientAddress((leader + 1) % 3)).lag()).isEmpty();
        }
    }

    @Test
    void everyOperationThroughTheClient() {
        try (TandemKvClient kv = cluster.client()) {
            assertThat(kv.get(b("ops/a"))).isEmpty();
            assertThat(kv.put(b("ops/a"), b("1"))).isEmpty();
            assertThat(kv.put(b("ops/a"), b("2"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(b("1")));
            assertThat(kv.get(b("ops/a"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(b("2")));
            assertThat(kv.get(b("ops/a"), ReadPolicy.LEASE)).hasValueSatisfying(v -> assertThat(v).isEqualTo(b("2")));
            assertThat(kv.compareAndSet(b("ops/a"), b("1"), b("3")).succeeded()).isFalse();
            assertThat(kv.compareAndSet(b("ops/a"), b("1"), b("3")).current()).isEqualTo(b("2"));
            assertThat(kv.compareAndSet(b("ops/a"), b("2"), b("3")).succeeded()).isTrue();
            assertThat(kv.compareAndSet(b("ops/b"), null, b("new")).succeeded()).isTrue();
            assertThat(kv.compareAndSet(b("ops/b"), b("new"), null).succeeded()).isTrue();
            assertThat(kv.get(b("ops/b"))).isEmpty();
            for (int i = 0; i < 25; i++) kv.put(b(String.format("ops/scan/%02d", i)), b("v" + i));
            KvResult.Page first = kv.scan(b("ops/scan/"), b("ops/scan0"), 10);
            assertThat(first.entries()).hasSize(10);
            assertThat(first.entries().getFirst().key()).isEqualTo(b("ops/scan/00"));
            KvResult.Page rest = kv.scan(first.nextFrom(), b("ops/scan0"), 100);
            assertThat(rest.entries()).hasSize(15);
            assertThat(rest.hasMore()).isFalse();
            assertThat(kv.delete(b("ops/a"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(b("3")));
            assertThat(kv.delete(b("ops/a"))).isEmpty();
            // A stale read may be served by any member once it applied the index asked for.
            assertThat(kv.get(b("ops/scan/03"), ReadPolicy.stale(0))).isPresent();
            // Size limits refuse a request before it is sent.
            assertThatThrownBy(() -> kv.put(new byte[KvLimits.DEFAULTS.maxKeyBytes() + 1], b("v")))
                    .isInstanceOf(KvException.class).extracting(e -> ((KvException) e).reason()).isEqualTo(KvException.Reason.KEY_TOO_LARGE);
            assertThatThrownBy(() -> kv.put(b("k"), new byte[KvLimits.DEFAULTS.maxValueBytes() + 1]))
                    .isInstanceOf(KvException.class).extracting(e -> ((KvException) e).reason()).isEqualTo(KvException.Reason.VALUE_TOO_LARGE);
        }
    }

    @Test
    void asyncOperationsManyInFlight() {
        try (TandemKvClient kv = TandemKvClient.connect(cluster.clientConfig().withMaxInFlight(64))) {
            var futures = new ArrayList<java.util.concurrent.CompletableFuture<?>>();
            for (int i = 0; i < 2_000; i++) futures.add(kv.putAsync(b("async/" + i), b("v" + i)));
            for (var f : futures) f.join();
            for (int i = 0; i < 2_000; i += 97) {
                String expected = "v" + i;
                assertThat(kv.get(b("async/" + i))).hasValueSatisfying(v -> assertThat(v).isEqualTo(b(expected)));
            }
        }
    }

    @Test
    void aFollowerRedirectsTheClientToTheLeader() throws Exception {
        int leader = cluster.awaitLeader(WAIT);
        int follower = (leader + 1) % cluster.size();
        try (RawClient raw = new RawClient(cluster.clientAddress(follower))) {
            Response r = raw.call(new Request.Command(5, 0, 0, codec.encode(new KvCommand.Put(b("redirect"), b("x")))));
            assertThat(r).isInstanceOf(Response.Error.class);
            Response.Error e = (Response.Error) r;
            assertThat(e.code()).isEqualTo(ErrorCode.NOT_LEADER);
            assertThat(e.requestId()).isEqualTo(5);
            assertThat(e.leader()).isEqualTo(InJvmCluster.id(leader));
            assertThat(e.leaderClientAddress()).isEqualTo(cluster.clientAddress(leader).toString());
        }
        try (TandemKvClient kv = TandemKvClient.connect(KvClientConfig.of(List.of(cluster.clientAddress(follower))))) {
            kv.put(b("redirect"), b("y"));
            assertThat(kv.redirects()).isGreaterThanOrEqualTo(1);
            assertThat(kv.get(b("redirect"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(b("y")));
        }
    }

    /**
     * Sends {@code request} to the leader, again to the new one if leadership moved meanwhile (NOT_LEADER
     * means the request was not ordered): on a loaded machine an election can come at any moment, and
     * what these tests check must hold at whichever member leads.
     */
    private Response callLeader(Request request) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try (RawClient raw = new RawClient(cluster.clientAddress(cluster.awaitLeader(WAIT)))) {
                Response r = raw.call(request);
                if (!(r instanceof Response.Error e && e.code() == ErrorCode.NOT_LEADER) || System.nanoTime() > deadline) return r;
            }
        }
    }

    @Test
    void aRetriedCommandOfOneSessionIsAppliedOnce() throws Exception {
        byte[] cas = codec.encode(new KvCommand.CompareAndSet(b("session/k"), null, b("first")));
        Response first = callLeader(new Request.Command(1, 0xC0FFEEL, 1, cas));
        Response retry = callLeader(new Request.Command(2, 0xC0FFEEL, 1, cas));
        Response next = callLeader(new Request.Command(3, 0xC0FFEEL, 2, cas));
        assertThat(codec.decodeResult(((Response.Result) first).result())).isEqualTo(new KvResult.CasSucceeded());
        assertThat(codec.decodeResult(((Response.Result) retry).result())).as("the retry gets the first answer").isEqualTo(new KvResult.CasSucceeded());
        assertThat(codec.decodeResult(((Response.Result) next).result())).as("a new sequence is applied").isEqualTo(new KvResult.CasFailed(b("first")));
        Response old = callLeader(new Request.Command(4, 0xC0FFEEL, 1, codec.encode(new KvCommand.Put(b("session/k"), b("late")))));
        assertThat(old).isInstanceOf(Response.Error.class);
        assertThat(((Response.Error) old).code()).isEqualTo(ErrorCode.REFUSED);
        Response bad = callLeader(new Request.Command(5, 0xC0FFEEL, 0, cas));
        assertThat(((Response.Error) bad).code()).isEqualTo(ErrorCode.BAD_REQUEST);
        try (TandemKvClient kv = cluster.client()) {
            assertThat(kv.get(b("session/k"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(b("first")));
        }
    }

    @Test
    void invalidKvRequestsGetAFailedResultAndChangeNothing() throws Exception {
        int leader = cluster.awaitLeader(WAIT);
        try (RawClient raw = new RawClient(cluster.clientAddress(leader))) {
            Response r = raw.call(new Request.Command(1, 0, 0, new byte[] {1, 99}));
            assertThat(codec.decodeResult(((Response.Result) r).result())).isInstanceOfSatisfying(KvResult.Failed.class,
                    f -> assertThat(f.reason()).isEqualTo(KvException.Reason.UNKNOWN_OPERATION));
            Response q = raw.call(new Request.Query(2, ReadPolicy.LINEARIZABLE, new byte[0]));
            assertThat(codec.decodeResult(((Response.Result) q).result())).isInstanceOfSatisfying(KvResult.Failed.class,
                    f -> assertThat(f.reason()).isEqualTo(KvException.Reason.MALFORMED));
        }
    }

    @Test
    void badFramesAreAnsweredThenTheConnectionIsClosed() throws Exception {
        int node = 0;
        try (RawClient raw = new RawClient(cluster.clientAddress(node))) {
            raw.sendRaw("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII)); // 'GET ' is a 1.2 GB length
            Response r = raw.receive();
            assertThat(((Response.Error) r).code()).isEqualTo(ErrorCode.BAD_REQUEST);
            assertThat(((Response.Error) r).message()).contains("frame larger than");
            assertThat(raw.closedByServer()).isTrue();
        }
        try (RawClient raw = new RawClient(cluster.clientAddress(node))) {
            raw.sendRaw(new byte[] {0, 0, 0, 10, 1, 16, 0, 0, 0, 0, 0, 0, 0, 9}); // version 1 (before the engine-neutral status)
            Response.Error e = (Response.Error) raw.receive();
            assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED_VERSION);
            assertThat(e.requestId()).isEqualTo(9);
            assertThat(raw.closedByServer()).isTrue();
        }
        try (RawClient raw = new RawClient(cluster.clientAddress(node))) {
            raw.sendRaw(new byte[] {0, 0, 0, 10, 2, 77, 0, 0, 0, 0, 0, 0, 0, 8}); // unknown request type
            Response.Error e = (Response.Error) raw.receive();
            assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST);
            assertThat(e.message()).contains("unknown request type 77");
            assertThat(raw.closedByServer()).isTrue();
        }
        try (TandemKvClient kv = cluster.client()) { // the server is unharmed
            assertThat(kv.status(cluster.clientAddress(node)).node()).isEqualTo("n1");
        }
    }

    @Test
    void adminRequestsSetTheClockOffsetAndTransferLeadership() {
        int leader = cluster.awaitLeader(WAIT);
        int target = (leader + 1) % cluster.size();
        try (TandemKvClient kv = cluster.client()) {
            kv.setClockOffset(cluster.clientAddress(target), Duration.ofMillis(5));
            kv.setClockOffset(cluster.clientAddress(target), Duration.ZERO);
            kv.changeMembership(MembershipChange.TRANSFER_LEADERSHIP, InJvmCluster.id(target));
            assertThat(cluster.awaitLeader(WAIT)).isEqualTo(target);
            assertThatThrownBy(() -> kv.changeMembership(MembershipChange.ADD_LEARNER, "n9"))
                    .isInstanceOfSatisfying(KvRejectedException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.REFUSED))
                    .hasMessageContaining("n9 is not in the members list");
            kv.put(b("after-transfer"), b("ok"));
        }
    }

    @Test
    void aFaultPlanThatIsolatesTheLeaderMakesTheOthersElectANewOne() {
        int leader = cluster.awaitLeader(WAIT);
        var everyone = Set.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));
        try (TandemKvClient kv = cluster.client()) {
            kv.put(b("faults/before"), b("1"));
            kv.setFaultPlan(cluster.clientAddress(leader), FaultPlan.NONE.isolate(NodeId.of(InJvmCluster.id(leader)), everyone));
            Await.until(WAIT, () -> {
                for (int i = 0; i < cluster.size(); i++) if (i != leader && cluster.server(i).status().isLeader()) return true;
                return false;
            }, () -> "a new leader among the others: " + cluster.statuses());
            kv.put(b("faults/during"), b("2")); // the client finds the new leader
            kv.setFaultPlan(cluster.clientAddress(leader), FaultPlan.NONE);
            int now = cluster.awaitLeader(WAIT);
            assertThat(now).isNotEqualTo(leader);
            assertThat(kv.get(b("faults/before"))).isPresent();
            assertThat(kv.get(b("faults/during"))).isPresent();
        }
    }

    @Test
    void prometheusEndpointServesMetrics() throws Exception {
        try (TandemKvClient kv = cluster.client()) {
            kv.put(b("metrics"), b("m"));
            kv.get(b("metrics"));
            kv.statusAll();
        }
        HttpClient http = HttpClient.newHttpClient();
        for (int i = 0; i < cluster.size(); i++) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.metricsPort(i) + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
            assertThat(r.body()).contains("tandem_kv_server_requests_total{node=\"n" + (i + 1) + "\",type=\"status\"}")
                    .contains("tandem_raft_term{").contains("tandem_transport_frames_sent_total{").contains("jvm_memory_used_bytes");
        }
        HttpResponse<String> notFound = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.metricsPort(0) + "/nothing")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(notFound.statusCode()).isEqualTo(404);
    }
}
