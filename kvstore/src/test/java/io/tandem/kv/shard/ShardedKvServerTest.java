package io.tandem.kv.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.NodeStatus;
import io.tandem.kv.testing.InJvmCluster;
import io.tandem.testing.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The KV store sharded over virtual synchrony (issue 23), five servers in this JVM over loopback TCP,
 * two durable shards of at least two members: every key is readable through any member, a shard
 * that loses a member takes one from the other shard, which copies the shard's history (state
 * transfer), and the stopped member rejoins from its data directory.
 */
class ShardedKvServerTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void keysSurviveAShardLosingAMemberAndTheMemberRejoining() throws Exception {
        try (InJvmCluster cluster = InJvmCluster.start(dir, 5, Map.of("protocol", "virtual-synchrony", "shards", "2", "shard-replicas", "2"));
             TandemKvClient kv = cluster.client()) {
            ShardMap first = awaitMap(cluster, m -> m.shards().size() == 2 && m.shards().stream().allMatch(s -> s.size() >= 2) && members(m).size() == 5);
            for (int i = 0; i < 60; i++) kv.put(key(i), value(i, 0));
            Set<Integer> shardsUsed = new HashSet<>();
            for (int i = 0; i < 60; i++) shardsUsed.add(KeyShards.shardOf(key(i), 2));
            assertThat(shardsUsed).containsExactlyInAnyOrder(0, 1);
            assertAllRead(kv, 60, 0);
            // The client learned the shard map from a member's status after its first redirects: now every
            // key goes straight to a member of its shard.
            Await.until(WAIT, () -> kv.shardMap() != null, () -> "the client to learn the shard map");
            assertThat(kv.shardMap().shards()).hasSize(2);
            long redirects = kv.redirects();
            assertAllRead(kv, 60, 0);
            assertThat(kv.redirects()).as("redirects once the client routes by the shard map").isEqualTo(redirects);

            // Stop a member of the smaller shard: the layout moves a member of the other shard in,
            // which copies the shard's history from the one that stayed.
            int small = first.shards().get(0).size() <= first.shards().get(1).size() ? 0 : 1;
            String victim = first.shards().get(small).getLast();
            int v = Integer.parseInt(victim.substring(1)) - 1;
            cluster.stop(v);
            ShardMap shrunk = awaitMap(cluster, m -> m.viewId() > first.viewId() && !members(m).contains(victim) && m.shards().get(small).size() >= 2);
            List<String> movedIn = new ArrayList<>(shrunk.shards().get(small));
            movedIn.removeAll(first.shards().get(small));
            assertThat(movedIn).as("a member of the other shard moved in: %s -> %s", first, shrunk).hasSize(1);
            assertAllRead(kv, 60, 0);
            for (int i = 0; i < 60; i++) kv.put(key(i), value(i, 1));

            // The stopped member restarts from its data directory and joins again as a new member.
            cluster.start(v);
            awaitMap(cluster, m -> members(m).contains(victim));
            assertAllRead(kv, 60, 1);
            // Every key read through each member (a member not in the key's shard redirects).
            for (int s = 0; s < 5; s++) {
                try (TandemKvClient one = TandemKvClient.connect(io.tandem.kv.client.KvClientConfig.of(List.of(cluster.clientAddress(s)))
                        .withRequestTimeout(Duration.ofSeconds(10)).withAttemptTimeout(Duration.ofSeconds(1)))) {
                    assertThat(one.get(key(s))).hasValue(value(s, 1));
                }
            }
        }
    }

    private static ShardMap awaitMap(InJvmCluster cluster, java.util.function.Predicate<ShardMap> ok) {
        ShardMap[] seen = new ShardMap[1];
        Await.until(WAIT, () -> {
            ShardMap agreed = null;
            for (int i = 0; i < cluster.size(); i++) {
                if (!cluster.running(i)) continue;
                NodeStatus s = cluster.server(i).status();
                ShardMap m = new ShardMap(s.shardView(), s.shards());
                if (!ok.test(m)) return false;
                if (agreed != null && !agreed.equals(m)) return false;
                agreed = m;
            }
            seen[0] = agreed;
            return agreed != null;
        }, () -> "every running server to report the same shard map, as wanted; now: " + maps(cluster));
        return seen[0];
    }

    private static List<String> maps(InJvmCluster cluster) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) {
            if (!cluster.running(i)) {
                out.add(InJvmCluster.id(i) + ": down");
                continue;
            }
            NodeStatus s = cluster.server(i).status();
            out.add(s.node() + ":" + s.shardView() + s.shards());
        }
        return out;
    }

    private static Set<String> members(ShardMap m) {
        Set<String> all = new HashSet<>();
        m.shards().forEach(all::addAll);
        return all;
    }

    private static void assertAllRead(TandemKvClient kv, int keys, int round) {
        for (int i = 0; i < keys; i++) {
            Optional<byte[]> got = kv.get(key(i));
            assertThat(got).as("key %d", i).isPresent();
            assertThat(new String(got.get(), StandardCharsets.UTF_8)).isEqualTo(new String(value(i, round), StandardCharsets.UTF_8));
        }
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i, int round) {
        return ("value-" + i + "-" + round).getBytes(StandardCharsets.UTF_8);
    }
}
