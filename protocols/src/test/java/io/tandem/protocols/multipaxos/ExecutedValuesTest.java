package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.junit.jupiter.api.Test;

/** The ring of executed values a replica keeps for peers answers as the tree map it replaced did. */
class ExecutedValuesTest {
    private static Value value(long slot) {
        return new Value.Command(NodeId.of("n1"), slot, new ClientRequest.Session(1, slot, 0), new byte[] {(byte) slot});
    }

    @Test
    void keepsConsecutiveSlotsAndForgetsAPrefix() {
        ExecutedValues kept = new ExecutedValues();
        assertThat(kept.isEmpty()).isTrue();
        assertThat(kept.get(1)).isNull();
        for (long s = 5; s < 5 + 3000; s++) kept.append(s, value(s)); // grows past the first ring
        assertThat(kept.firstSlot()).isEqualTo(5);
        assertThat(kept.size()).isEqualTo(3000);
        assertThat(kept.get(4)).isNull();
        assertThat(kept.get(5)).isEqualTo(value(5));
        assertThat(kept.get(3004)).isEqualTo(value(3004));
        assertThat(kept.get(3005)).isNull();
        kept.dropThrough(2000);
        assertThat(kept.firstSlot()).isEqualTo(2001);
        assertThat(kept.get(2000)).isNull();
        assertThat(kept.get(2001)).isEqualTo(value(2001));
        kept.dropThrough(10_000);
        assertThat(kept.isEmpty()).isTrue();
    }

    @Test
    void aJumpStartsANewRun() {
        ExecutedValues kept = new ExecutedValues();
        for (long s = 1; s <= 10; s++) kept.append(s, value(s));
        kept.append(50, value(50)); // execution jumped (a snapshot was installed): only consecutive slots are kept
        assertThat(kept.firstSlot()).isEqualTo(50);
        assertThat(kept.size()).isEqualTo(1);
        assertThat(kept.get(10)).isNull();
        assertThat(kept.get(50)).isEqualTo(value(50));
    }

    @Test
    void agreesWithATreeMapOverRandomAppendsDropsAndClears() {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(17);
        ExecutedValues kept = new ExecutedValues();
        TreeMap<Long, Value> model = new TreeMap<>();
        long next = 1;
        for (int step = 0; step < 50_000; step++) {
            int op = random.nextInt(100);
            if (op < 90) {
                kept.append(next, value(next));
                model.put(next, value(next));
                next++;
            } else if (op < 98) {
                long through = next - 1 - random.nextInt(2000);
                kept.dropThrough(through);
                model.headMap(through, true).clear();
            } else {
                kept.clear();
                model.clear();
                next += random.nextInt(100); // the replica installs a snapshot and resumes after it
            }
            assertThat(kept.isEmpty()).isEqualTo(model.isEmpty());
            if (!model.isEmpty()) assertThat(kept.firstSlot()).isEqualTo(model.firstKey());
            long probe = next - 1 - random.nextInt(3000);
            assertThat(kept.get(probe)).isEqualTo(model.get(probe));
        }
    }

    @Test
    void keepsValuesAsBytesAndFreesTheChunksOfADroppedPrefix() {
        ExecutedValues kept = new ExecutedValues();
        byte[] payload = new byte[1000];
        Value big = new Value.Command(NodeId.of("n2"), 7, new ClientRequest.Session(3, 4, 2), new byte[ExecutedValues.CHUNK_BYTES + 10]);
        for (long s = 1; s <= 1000; s++) kept.append(s, s == 500 ? big : s % 3 == 0 ? Value.NOOP : s % 3 == 1
                ? new Value.Command(NodeId.of("n1"), s, new ClientRequest.Session(1, s, 0), payload)
                : new Value.LogRead(NodeId.of("n3"), s));
        assertThat(kept.get(500)).isEqualTo(big); // a value larger than a chunk gets its own
        assertThat(kept.get(3)).isEqualTo(Value.NOOP);
        assertThat(kept.get(2)).isEqualTo(new Value.LogRead(NodeId.of("n3"), 2));
        assertThat(kept.get(1000)).isEqualTo(new Value.Command(NodeId.of("n1"), 1000, new ClientRequest.Session(1, 1000, 0), payload));
        long before = kept.chunkBytes();
        kept.dropThrough(900);
        assertThat(kept.chunkBytes()).isLessThan(before / 5); // 100 slots of ~1 KB stay, in at most three chunks
        assertThat(kept.get(902)).isEqualTo(new Value.LogRead(NodeId.of("n3"), 902));
        kept.dropThrough(1000);
        assertThat(kept.chunkBytes()).isZero();
    }
}
