package io.tandem.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EdnReaderTest {
    private static Object parse(String text) {
        return EdnReader.parse(text);
    }

    @Test
    void scalars() {
        assertThat(parse("nil")).isNull();
        assertThat(parse("true")).isEqualTo(true);
        assertThat(parse("false")).isEqualTo(false);
        assertThat(parse("42")).isEqualTo(42L);
        assertThat(parse("-7")).isEqualTo(-7L);
        assertThat(parse("+7")).isEqualTo(7L);
        assertThat(parse("0")).isEqualTo(0L);
        assertThat(parse("3N")).isEqualTo(3L);
        assertThat(parse("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
        assertThat(parse("9223372036854775808")).isEqualTo(new BigInteger("9223372036854775808"));
        assertThat(parse("-9223372036854775809N")).isEqualTo(new BigInteger("-9223372036854775809"));
        assertThat(parse("0x1F")).isEqualTo(31L);
        assertThat(parse("2r101")).isEqualTo(5L);
        assertThat(parse("1.5")).isEqualTo(1.5);
        assertThat(parse("-1e3")).isEqualTo(-1000.0);
        assertThat(parse("2.5E-1")).isEqualTo(0.25);
        assertThat(parse("1.10M")).isEqualTo(new BigDecimal("1.10"));
        assertThat(parse("##Inf")).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(parse("##-Inf")).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat((Double) parse("##NaN")).isNaN();
        assertThat(parse("1/3")).isEqualTo(new Ratio(BigInteger.ONE, BigInteger.valueOf(3)));
    }

    @Test
    void stringsAndCharacters() {
        assertThat(parse("\"plain\"")).isEqualTo("plain");
        assertThat(parse("\"tab\\t nl\\n cr\\r q\\\" bs\\\\ u\\u00e9 b\\b f\\f\"")).isEqualTo("tab\t nl\n cr\r q\" bs\\ u\u00e9 b\b f\f");
        assertThat(parse("\"multi\nline\"")).isEqualTo("multi\nline");
        assertThat(parse("\"\"")).isEqualTo("");
        assertThat(parse("\\a")).isEqualTo('a');
        assertThat(parse("\\newline")).isEqualTo('\n');
        assertThat(parse("\\space")).isEqualTo(' ');
        assertThat(parse("\\u0041")).isEqualTo('A');
        assertThat(parse("[\\( \\)]")).isEqualTo(List.of('(', ')'));
    }

    @Test
    void keywordsAndSymbols() {
        assertThat(parse(":read")).isEqualTo(Keyword.of("read"));
        assertThat(parse(":jepsen.history/op")).isEqualTo(Keyword.of("jepsen.history/op"));
        assertThat(parse(":start-partition")).isSameAs(Keyword.of("start-partition"));
        assertThat(parse("foo")).isEqualTo(new Symbol("foo"));
        assertThat(parse("clojure.lang.AFn/applyToHelper")).isEqualTo(new Symbol("clojure.lang.AFn/applyToHelper"));
        assertThat(parse("-")).isEqualTo(new Symbol("-"));
        assertThat(parse("->x")).isEqualTo(new Symbol("->x"));
        assertThat(parse("/")).isEqualTo(new Symbol("/"));
    }

    @Test
    void collections() {
        assertThat(parse("[1 [2 3] ()]")).isEqualTo(List.of(1L, List.of(2L, 3L), List.of()));
        assertThat(parse("(1 nil)")).isInstanceOf(EdnList.class).isEqualTo(Arrays.asList(1L, null));
        Map<Object, Object> expected = new LinkedHashMap<>();
        expected.put(Keyword.of("a"), 1L);
        expected.put(null, List.of());
        expected.put(List.of(1L, 2L), Set.of("x"));
        assertThat(parse("{:a 1, nil [], [1 2] #{\"x\"}}")).isEqualTo(expected);
        assertThat(parse("#{1 2 3}")).isEqualTo(Set.of(1L, 2L, 3L));
        assertThat(parse("{}")).isEqualTo(Map.of());
    }

    @Test
    void mapsKeepTheirKeyOrder() {
        @SuppressWarnings("unchecked")
        Map<Object, Object> map = (Map<Object, Object>) parse("{:z 1 :a 2 :m 3}");
        assertThat(map.keySet()).containsExactly(Keyword.of("z"), Keyword.of("a"), Keyword.of("m"));
    }

    @Test
    void listsEqualVectorsLikeInClojure() {
        assertThat(parse("(1 2)")).isEqualTo(parse("[1 2]"));
        assertThat(parse("[1 2]")).isEqualTo(parse("(1 2)"));
        assertThat(parse("(1 2)").hashCode()).isEqualTo(parse("[1 2]").hashCode());
    }

    @Test
    void whitespaceCommentsDiscardsAndMetadata() {
        assertThat(parse(" ,, ; comment\n [1 ;inside\n ,2] ; trailing")).isEqualTo(List.of(1L, 2L));
        assertThat(parse("[1 #_ 2 3]")).isEqualTo(List.of(1L, 3L));
        assertThat(parse("[1 #_ #_ 2 3 4]")).isEqualTo(List.of(1L, 4L));
        assertThat(parse("[#_[nested (discard)] :x]")).isEqualTo(List.of(Keyword.of("x")));
        assertThat(parse("#_ :gone :kept")).isEqualTo(Keyword.of("kept"));
        assertThat(parse("^{:tag String} [1]")).isEqualTo(List.of(1L));
        assertThat(parse("^:private x")).isEqualTo(new Symbol("x"));
        assertThat(parse("#!/usr/bin/env bb\n:after-shebang")).isEqualTo(Keyword.of("after-shebang"));
    }

    @Test
    void taggedLiteralsAreKept() {
        assertThat(parse("#inst \"2024-01-01T00:00:00.000-00:00\""))
                .isEqualTo(new Tagged(new Symbol("inst"), "2024-01-01T00:00:00.000-00:00"));
        Object record = parse("#jepsen.history.Op{:index 0, :type :invoke}");
        assertThat(record).isInstanceOf(Tagged.class);
        assertThat(((Tagged) record).tag()).isEqualTo(new Symbol("jepsen.history.Op"));
        assertThat(((Tagged) record).value()).isEqualTo(Map.of(Keyword.of("index"), 0L, Keyword.of("type"), Keyword.of("invoke")));
        assertThat(parse("#object[java.lang.Object 0x1b2c \"obj\"]"))
                .isEqualTo(new Tagged(new Symbol("object"), List.of(new Symbol("java.lang.Object"), 0x1b2cL, "obj")));
    }

    @Test
    void streamsOfForms() {
        assertThat(EdnReader.parseAll("1 :a\n{:b 2} ; end\n")).containsExactly(1L, Keyword.of("a"), Map.of(Keyword.of("b"), 2L));
        assertThat(EdnReader.parseAll("  ; only a comment\n")).isEmpty();
        try (EdnReader reader = new EdnReader(new StringReader("\n\n  [1\n 2]\n:x"))) {
            assertThat(reader.hasNext()).isTrue();
            assertThat(reader.line()).isEqualTo(3);
            assertThat(reader.next()).isEqualTo(List.of(1L, 2L));
            assertThat(reader.hasNext()).isTrue();
            assertThat(reader.line()).isEqualTo(5);
            assertThat(reader.next()).isEqualTo(Keyword.of("x"));
            assertThat(reader.hasNext()).isFalse();
        }
    }

    @Test
    void longInputCrossesBufferBoundaries() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < 5_000; i++) {
            sb.append("{:i ").append(i).append(", :s \"").append("x".repeat(i % 17)).append("\"} ");
        }
        List<?> items = (List<?>) parse(sb.append(']').toString());
        assertThat(items).hasSize(5_000);
        assertThat(items.get(4_999)).isEqualTo(Map.of(Keyword.of("i"), 4_999L, Keyword.of("s"), "x".repeat(4_999 % 17)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
        "'[1 2'                   | 1 | 5 | end of input inside the vector opened at line 1, column 1",
        "'(1\n(2)'                | 2 | 4 | end of input inside the list opened at line 1, column 1",
        "'{:a 1 :b}'              | 1 | 1 | the map opened here has an odd number of forms (3): a key has no value",
        "'{:a 1 :a 2}'            | 1 | 1 | duplicate key :a in the map opened here",
        "'#{1 1}'                 | 1 | 1 | duplicate element 1 in the set opened here",
        "'[1 2)'                  | 1 | 5 | mismatched ')' closing the vector opened at line 1, column 1",
        "']'                      | 1 | 1 | unmatched closing ']'",
        "'\"abc'                  | 1 | 1 | end of input inside the string opened here",
        "'\"a\\qb\"'              | 1 | 5 | unsupported escape sequence \\q in a string",
        "'\"\\u12\"'              | 1 | 7 | expected 4 hexadecimal digits in a \\u escape",
        "'12abc'                  | 1 | 1 | invalid number 12abc",
        "'::auto'                 | 1 | 1 | invalid keyword ::auto",
        "':'                      | 1 | 1 | invalid keyword :",
        "'\\bogus'                | 1 | 7 | unknown character literal \\bogus",
        "'[1 #_]'                 | 1 | 6 | expected a form after #_, found ']'",
        "'#_'                     | 1 | 3 | unexpected end of input after #_",
        "'##Foo'                  | 1 | 1 | unknown symbolic value ##Foo",
        "'#\"re\"'                | 1 | 2 | regular expression literals (#\"...\") are not EDN",
        "'#1'                     | 1 | 2 | invalid dispatch '#1'",
        "'1 2'                    | 1 | 3 | unexpected '2' after the first form",
        "''                       | 1 | 1 | expected an EDN form, found only whitespace and comments",
        "'[\n\n  {:a 1 :b}]'      | 3 | 3 | the map opened here has an odd number of forms (3): a key has no value",
    })
    void malformedInputNamesLineAndColumn(String text, int line, int column, String message) {
        assertThatThrownBy(() -> parse(text))
                .isInstanceOfSatisfying(EdnParseException.class, e -> {
                    assertThat(e.line()).isEqualTo(line);
                    assertThat(e.column()).isEqualTo(column);
                })
                .hasMessage("line " + line + ", column " + column + ": " + message);
    }

    @Test
    void absurdNestingIsAnErrorNotAStackOverflow() {
        assertThat(parse("[".repeat(200) + "]".repeat(200))).isInstanceOf(List.class);
        String deep = "[".repeat(5_000) + "]".repeat(5_000);
        assertThatThrownBy(() -> parse(deep)).isInstanceOf(EdnParseException.class).hasMessageContaining("nesting deeper than 200 levels");
    }
}
