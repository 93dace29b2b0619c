package io.tandem.kv.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.ClientRequest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KeyShardsTest {
    @Test
    void everyKeyHasOneShardInRangeAndTheRegisterKeysSpreadOverAll() {
        for (int shards = 1; shards <= 8; shards++) {
            int[] count = new int[shards];
            for (int i = 0; i < 4_000; i++) {
                byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
                int s = KeyShards.shardOf(key, shards);
                assertThat(s).isBetween(0, shards - 1).isEqualTo(KeyShards.shardOf(key.clone(), shards));
                count[s]++;
            }
            // keys that differ in their last characters only (the workloads' keys) land in every shard, none above twice its share
            for (int c : count) assertThat(c).isBetween(4_000 / shards / 2, 2 * 4_000 / shards);
        }
        assertThat(KeyShards.shardOf(new byte[0], 3)).isBetween(0, 2);
    }

    @Test
    void aShardCountOutsideTheRangeIsRefused() {
        assertThatThrownBy(() -> KeyShards.shardOf(new byte[1], 0)).hasMessageContaining("shards must be in [1, 64]");
        assertThatThrownBy(() -> KeyShards.shardOf(new byte[1], 65)).hasMessageContaining("shards must be in [1, 64]");
    }

    @Test
    void envelopesRoundTripAndBytesThatAreNoneDecodeToNull() {
        Envelope command = new Envelope(false, -5, 42, new ClientRequest.Session(7, 3, 2), new byte[] {1, 2, 3});
        Envelope back = Envelope.decode(command.encode());
        assertThat(back.read()).isFalse();
        assertThat(back.incarnation()).isEqualTo(-5);
        assertThat(back.requestId()).isEqualTo(42);
        assertThat(back.session()).isEqualTo(new ClientRequest.Session(7, 3, 2));
        assertThat(back.payload()).containsExactly(1, 2, 3);
        Envelope read = Envelope.decode(new Envelope(true, 1, 2, ClientRequest.Session.NONE, new byte[0]).encode());
        assertThat(read.read()).isTrue();
        assertThat(read.session()).isEqualTo(ClientRequest.Session.NONE);

        assertThat(Envelope.decode(new byte[3])).isNull();
        byte[] wrongKind = command.encode();
        wrongKind[0] = 'X';
        assertThat(Envelope.decode(wrongKind)).isNull();
        byte[] badSession = new Envelope(false, 0, 1, new ClientRequest.Session(7, 3, 3), new byte[0]).encode();
        badSession[1 + 2 * 8 + 7] = 0; // client id 7 -> 0 with sequence 3: no session has that
        assertThat(Envelope.decode(badSession)).isNull();
    }

    @Test
    void aLayoutThatCannotFillEveryShardIsRefusedWithWhatToChange() {
        ShardedKvProtocol.check(2, 2, 4);
        assertThatThrownBy(() -> ShardedKvProtocol.check(3, 2, 5))
                .hasMessage("3 shards of at least 2 replicas need 6 members, but the group has 5: lower shards or shard-replicas, or add members");
        assertThatThrownBy(() -> ShardedKvProtocol.check(0, 1, 5)).hasMessageContaining("shards must be in [1, 64]");
        assertThatThrownBy(() -> ShardedKvProtocol.check(2, 0, 5)).hasMessageContaining("shard-replicas must be >= 1");
    }

    /**
     * The store asks its protocol to split the group (Protocol.withShards) and never names the engine:
     * a protocol that cannot shard refuses with its own reason, naming it; one that can builds a
     * member's engine of the store over its group.
     */
    @Test
    void theStoreAsksItsProtocolToShardAndOneThatCannotSaysSo() {
        for (String name : io.tandem.protocols.Protocols.names()) {
            io.tandem.engine.Protocol p = io.tandem.protocols.Protocols.byName(name);
            if (name.equals("virtual-synchrony")) {
                assertThat(p.shardingRefused()).isEmpty();
                continue;
            }
            assertThat(p.shardingRefused()).as(name).hasValueSatisfying(why -> assertThat(why).startsWith(name + " cannot split its group into shards"));
            assertThatThrownBy(() -> ShardedKvProtocol.over(p, 2, 1, io.tandem.kv.KvLimits.DEFAULTS, io.tandem.execution.ExecutorFactory.Limits.DEFAULTS))
                    .as(name).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("the sharded KV store needs a protocol that splits its group into shards: " + p.shardingRefused().orElseThrow());
            assertThatThrownBy(() -> p.withShards(new io.tandem.engine.ShardLayout("kv", 2, 1, true), (self, group) -> null))
                    .as(name).hasMessage(p.shardingRefused().orElseThrow());
        }
        ShardedKvProtocol store = ShardedKvProtocol.over(io.tandem.protocols.Protocols.byName("virtual-synchrony"), 2, 2, io.tandem.kv.KvLimits.DEFAULTS,
                io.tandem.execution.ExecutorFactory.Limits.DEFAULTS);
        assertThat(store.name()).isEqualTo("virtual-synchrony");
        assertThat(store.shardingRefused()).isPresent(); // split once, not twice
        java.util.List<io.tandem.engine.NodeId> five = java.util.stream.IntStream.rangeClosed(1, 5).mapToObj(i -> io.tandem.engine.NodeId.of("n" + i)).toList();
        assertThat(store.createEngine(five.getFirst(), five)).isInstanceOf(ShardedKvEngine.class);
        assertThatThrownBy(() -> store.createEngine(five.getFirst(), five.subList(0, 3)))
                .hasMessage("2 shards of at least 2 replicas need 4 members, but the group has 3: lower shards or shard-replicas, or add members");
    }
}
