package io.tandem.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EdnWriterTest {
    @Test
    void printsLikeClojurePrn() {
        Map<Object, Object> op = new LinkedHashMap<>();
        op.put(Keyword.of("type"), Keyword.of("ok"));
        op.put(Keyword.of("value"), Arrays.asList(3L, null));
        op.put(Keyword.of("error"), List.of(Keyword.of("not-leader"), "n1 said \"no\"\n"));
        assertThat(EdnWriter.toEdn(op)).isEqualTo("{:type :ok, :value [3 nil], :error [:not-leader \"n1 said \\\"no\\\"\\n\"]}");
        assertThat(EdnWriter.toEdn(EdnList.of(List.of(1L, 2L)))).isEqualTo("(1 2)");
        assertThat(EdnWriter.toEdn(new LinkedHashSet<>(List.of(1L, 2L)))).isEqualTo("#{1 2}");
        assertThat(EdnWriter.toEdn(new BigInteger("123"))).isEqualTo("123N");
        assertThat(EdnWriter.toEdn(new BigDecimal("1.50"))).isEqualTo("1.50M");
        assertThat(EdnWriter.toEdn(1.0)).isEqualTo("1.0");
        assertThat(EdnWriter.toEdn(Double.NaN)).isEqualTo("##NaN");
        assertThat(EdnWriter.toEdn(Double.NEGATIVE_INFINITY)).isEqualTo("##-Inf");
        assertThat(EdnWriter.toEdn('\n')).isEqualTo("\\newline");
        assertThat(EdnWriter.toEdn('x')).isEqualTo("\\x");
        assertThat(EdnWriter.toEdn("\u0001")).isEqualTo("\"\\u0001\"");
        assertThat(EdnWriter.toEdn(new Tagged(new Symbol("inst"), "2024"))).isEqualTo("#inst \"2024\"");
        assertThat(EdnWriter.toEdn(new Tagged(new Symbol("my.Rec"), Map.of(Keyword.of("a"), 1L)))).isEqualTo("#my.Rec{:a 1}");
        assertThat(EdnWriter.toEdn(42)).isEqualTo("42");
    }

    @Test
    void refusesTypesEdnCannotRepresent() {
        assertThatThrownBy(() -> EdnWriter.toEdn(new Object()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cannot write a java.lang.Object as EDN");
    }

    @Test
    void randomValuesRoundTrip() {
        SplittableRandom random = new SplittableRandom(2024);
        for (int i = 0; i < 2_000; i++) {
            Object value = randomValue(random, 4);
            String text = EdnWriter.toEdn(value);
            Object back = EdnReader.parse(text);
            assertThat(back).as(text).isEqualTo(value);
            assertThat(EdnWriter.toEdn(back)).isEqualTo(text);
        }
    }

    @Test
    void nonFiniteDoublesRoundTrip() {
        assertThat(EdnReader.parse(EdnWriter.toEdn(Double.POSITIVE_INFINITY))).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat((Double) EdnReader.parse(EdnWriter.toEdn(Double.NaN))).isNaN();
    }

    private static Object randomValue(SplittableRandom random, int depth) {
        int kind = random.nextInt(depth > 0 ? 18 : 12);
        return switch (kind) {
            case 0 -> null;
            case 1 -> random.nextBoolean();
            case 2 -> random.nextLong();
            case 3 -> (long) random.nextInt(-5, 5);
            case 4 -> BigInteger.valueOf(Long.MAX_VALUE).multiply(BigInteger.valueOf(random.nextInt(2, 1000)));
            case 5 -> random.nextDouble(-1e6, 1e6);
            case 6 -> new BigDecimal(BigInteger.valueOf(random.nextInt(100_000)), random.nextInt(5));
            case 7 -> randomString(random);
            case 8 -> (char) random.nextInt(0x20, 0x7F);
            case 9 -> Keyword.of(random.nextBoolean() ? "k" + random.nextInt(10) : "ns.x/k" + random.nextInt(10));
            case 10 -> new Symbol("sym" + random.nextInt(10));
            case 11 -> new Ratio(BigInteger.valueOf(random.nextInt(-9, 9)), BigInteger.valueOf(random.nextInt(1, 9)));
            case 12, 13 -> {
                List<Object> items = new ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    items.add(randomValue(random, depth - 1));
                }
                yield kind == 12 ? items : EdnList.of(items);
            }
            case 14, 15 -> {
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    map.put(randomValue(random, depth - 1), randomValue(random, depth - 1));
                }
                yield map;
            }
            case 16 -> {
                Set<Object> set = new LinkedHashSet<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    set.add(randomValue(random, depth - 1));
                }
                yield set;
            }
            default -> new Tagged(new Symbol(random.nextBoolean() ? "inst" : "my.ns.Record"), randomValue(random, depth - 1));
        };
    }

    private static String randomString(SplittableRandom random) {
        String alphabet = "ab \"\\\n\t\r\u00e9\u4e2d;,#{}[]()\u0000\u007f";
        StringBuilder sb = new StringBuilder();
        for (int i = random.nextInt(8); i > 0; i--) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }
}
