package io.tandem.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryTest {
    /** verification.md §2.5, verbatim: what our harness emits. */
    private static final String HARNESS_EXAMPLE = """
            {:index 0, :time 1021339, :type :invoke, :process 0, :f :write, :value [3 4]}
            {:index 1, :time 1244871, :type :invoke, :process 1, :f :read, :value [3 nil]}
            {:index 2, :time 8103220, :type :ok, :process 1, :f :read, :value [3 nil]}
            {:index 3, :time 9211843, :type :ok, :process 0, :f :write, :value [3 4]}
            {:index 4, :time 9377003, :type :invoke, :process 2, :f :cas, :value [3 [4 1]]}
            {:index 5, :time 3009377003, :type :info, :process 2, :f :cas, :value [3 [4 1]], :error :timeout}
            {:index 6, :time 3009411010, :type :invoke, :process 12, :f :read, :value [3 nil]}
            """;

    @Test
    void harnessExampleRoundTripsByteForByte() {
        History history = History.parse(HARNESS_EXAMPLE);
        assertThat(history.size()).isEqualTo(7);
        Op info = history.get(5);
        assertThat(info.type()).isEqualTo(Op.Type.INFO);
        assertThat(info.process()).isEqualTo(2L);
        assertThat(info.f()).isEqualTo(Keyword.of("cas"));
        assertThat(info.value()).isEqualTo(List.of(3L, List.of(4L, 1L)));
        assertThat(info.error()).isEqualTo(Keyword.of("timeout"));
        assertThat(info.index()).isEqualTo(5);
        assertThat(info.time()).isEqualTo(3_009_377_003L);
        assertThat(history.toEdn()).isEqualTo(HARNESS_EXAMPLE);
    }

    @Test
    void vectorListAndStreamFormsReadTheSame() {
        String ops = """
                {:process 0, :type :invoke, :f :read, :value nil}
                ; a comment between ops
                {:process 0, :type :ok, :f :read, :value 1}""";
        History stream = History.parse(ops);
        assertThat(History.parse("[" + ops + "]")).isEqualTo(stream);
        assertThat(History.parse("(" + ops + "\n)")).isEqualTo(stream);
        assertThat(History.parse(ops.replace("; a comment between ops", "").replace("\n", ", "))).isEqualTo(stream);
        assertThat(History.parse("#_{:process 9, :type :invoke}\n" + ops)).isEqualTo(stream);
        assertThat(stream.line(0)).isEqualTo(1);
        assertThat(stream.line(1)).isEqualTo(3);
        assertThat(History.parse("; header\n[\n" + ops + "]").line(1)).isEqualTo(5);
        assertThat(History.parse("")).isEqualTo(History.of(List.of()));
        assertThat(History.parse("[]").size()).isZero();
    }

    @Test
    void keyOrderDoesNotMatterAndExtrasArePreserved() {
        History history = History.parse("""
                {:value 1, :f :write, :process 3, :type :fail, :time 9, :index 4, :error [:not-leader "n2"], :node "n1"}
                """);
        Op op = history.get(0);
        assertThat(op).isEqualTo(new Op(4, 9, Op.Type.FAIL, 3L, Keyword.of("write"), 1L,
                Map.of(Keyword.of("error"), List.of(Keyword.of("not-leader"), "n2"), Keyword.of("node"), "n1")));
        assertThat(history.toEdn())
                .isEqualTo("{:index 4, :time 9, :type :fail, :process 3, :f :write, :value 1, :error [:not-leader \"n2\"], :node \"n1\"}\n");
    }

    @Test
    void knossosStyleOpsWithoutIndexTimeOrValue() {
        Op op = History.parse("{:type :invoke, :process 1, :f :lock}").get(0);
        assertThat(op.index()).isEqualTo(Op.NONE);
        assertThat(op.time()).isEqualTo(Op.NONE);
        assertThat(op.value()).isNull();
        assertThat(op.toEdn()).isEqualTo("{:type :invoke, :process 1, :f :lock, :value nil}");
    }

    @Test
    void oddIndexAndTimeValuesSurviveAsExtras() {
        String text = "{:type :ok, :process 1, :f :read, :value 2, :index -1, :time 1.5}\n";
        Op op = History.parse(text).get(0);
        assertThat(op.index()).isEqualTo(Op.NONE);
        assertThat(op.extras()).containsEntry(Keyword.of("index"), -1L).containsEntry(Keyword.of("time"), 1.5);
        assertThat(History.parse(History.parse(text).toEdn())).isEqualTo(History.parse(text));
    }

    @Test
    void processesMayBeHugeIntegersOrKeywords() {
        History history = History.parse("""
                {:type :invoke, :process 123456789012345678901234567890, :f :read}
                {:type :info, :process :nemesis, :f :kill, :value {"n1" :killed}}
                """);
        assertThat(history.get(0).process()).isEqualTo(new BigInteger("123456789012345678901234567890"));
        assertThat(history.get(0).isClient()).isTrue();
        assertThat(history.get(1).isClient()).isFalse();
        assertThat(History.parse(history.toEdn())).isEqualTo(history);
    }

    @Test
    void clientProcessNumbersAreLongsHoweverGiven() {
        Op op = new Op(0, 0, Op.Type.INVOKE, 3, Keyword.of("read"), null);
        assertThat(op.process()).isEqualTo(3L);
        assertThat(op.isClient()).isTrue();
        assertThat(op.withProcess(BigInteger.TEN).process()).isEqualTo(10L);
    }

    @Test
    void printedRecordsCountAsTheirMaps() {
        History history = History.parse("#jepsen.history.Op{:index 0, :time 5, :type :invoke, :process 0, :f :read, :value nil}");
        assertThat(history.get(0)).isEqualTo(new Op(0, 5, Op.Type.INVOKE, 0L, Keyword.of("read"), null));
    }

    @Test
    void typeMayBeAStringInLenientReading() {
        assertThat(History.parse("{:type \"ok\", :process 0, :f :read, :value 1}").get(0).type()).isEqualTo(Op.Type.OK);
    }

    @Test
    void malformedHistoriesNameTheLine() {
        assertThatThrownBy(() -> History.parse("{:type :invoke, :process 0, :f :read}\n\n{:process 0, :f :read}"))
                .isInstanceOfSatisfying(HistoryException.class, e -> assertThat(e.line()).isEqualTo(3))
                .hasMessageStartingWith("line 3: op has no :type");
        assertThatThrownBy(() -> History.parse("[{:type :invoke, :process 0}\n :oops]"))
                .isInstanceOf(HistoryException.class).hasMessage("line 2: expected an op map, found :oops");
        assertThatThrownBy(() -> History.parse("{:type :invoke, :f :read}"))
                .isInstanceOf(HistoryException.class).hasMessageStartingWith("line 1: op has no :process");
        assertThatThrownBy(() -> History.parse("{:type :done, :process 1}"))
                .isInstanceOf(HistoryException.class)
                .hasMessageStartingWith("line 1: unknown op :type :done (expected :invoke, :ok, :fail or :info)");
        assertThatThrownBy(() -> History.parse("[{:type :invoke, :process 0}]\n{:type :ok, :process 0}"))
                .isInstanceOf(HistoryException.class)
                .hasMessageStartingWith("line 2: unexpected form after the closing ] of the history");
        assertThatThrownBy(() -> History.parse("[{:type :invoke, :process 0}\n"))
                .isInstanceOf(EdnParseException.class)
                .hasMessageContaining("end of input inside the history opened at line 1");
        assertThatThrownBy(() -> History.parse("{:type :invoke, :process 0}\n{:type :ok :process}"))
                .isInstanceOfSatisfying(EdnParseException.class, e -> assertThat(e.line()).isEqualTo(2));
    }

    @Test
    void operationsPairInvocationsWithCompletionsPerProcess() {
        History history = History.parse("""
                {:type :invoke, :process 0, :f :write, :value 1}
                {:type :invoke, :process 1, :f :read, :value nil}
                {:type :info, :process :nemesis, :f :start-partition, :value :majority}
                {:type :ok, :process 1, :f :read, :value 1}
                {:type :info, :process 0, :f :write, :value 1}
                {:type :invoke, :process 5, :f :read, :value nil}
                """);
        List<Operation> operations = history.operations();
        assertThat(operations).hasSize(3);
        assertThat(operations.get(0)).isEqualTo(new Operation(0, history.get(0), 4, history.get(4)));
        assertThat(operations.get(0).outcome()).isEqualTo(Op.Type.INFO);
        assertThat(operations.get(1)).isEqualTo(new Operation(1, history.get(1), 3, history.get(3)));
        assertThat(operations.get(1).outcome()).isEqualTo(Op.Type.OK);
        assertThat(operations.get(2).isCompleted()).isFalse();
        assertThat(operations.get(2).outcome()).isEqualTo(Op.Type.INFO);
    }

    @Test
    void pairingErrorsNameBothLines() {
        assertThatThrownBy(() -> History.parse("""
                {:type :invoke, :process 0, :f :write, :value 1}
                {:type :ok, :process 1, :f :write, :value 1}
                """).operations())
                .isInstanceOf(HistoryException.class)
                .hasMessage("line 2: process 1 completes {:type :ok, :process 1, :f :write, :value 1} without a pending invocation");
        assertThatThrownBy(() -> History.parse("""
                {:type :invoke, :process 0, :f :write, :value 1}
                {:type :invoke, :process 0, :f :read, :value nil}
                """).operations())
                .isInstanceOf(HistoryException.class)
                .hasMessage("line 2: process 0 invokes {:type :invoke, :process 0, :f :read, :value nil} "
                        + "while its invocation at line 1 has not completed");
        assertThatThrownBy(() -> History.of(List.of(new Op(0, 0, Op.Type.FAIL, 3L, Keyword.of("read"), null))).operations())
                .isInstanceOf(HistoryException.class)
                .hasMessageStartingWith("process 3 completes");
    }

    @Test
    void builderAssignsDenseIndicesAndEnforcesAlternation() {
        HistoryBuilder builder = History.builder();
        builder.invoke(10, 0, Keyword.of("write"), 3L);
        builder.nemesis(11, Keyword.of("start-partition"), Keyword.of("majority"));
        builder.invoke(12, 1, Keyword.of("read"), null);
        builder.ok(13, 0, 3L);
        builder.info(14, 1, null, Keyword.of("timeout"));
        builder.invoke(15, 11, Keyword.of("cas"), List.of(3L, 4L));
        builder.fail(16, 11, List.of(3L, 4L), Keyword.of("precondition"));
        assertThat(builder.isPending(11)).isFalse();
        History history = builder.build();
        assertThat(history.toEdn()).isEqualTo("""
                {:index 0, :time 10, :type :invoke, :process 0, :f :write, :value 3}
                {:index 1, :time 11, :type :info, :process :nemesis, :f :start-partition, :value :majority}
                {:index 2, :time 12, :type :invoke, :process 1, :f :read, :value nil}
                {:index 3, :time 13, :type :ok, :process 0, :f :write, :value 3}
                {:index 4, :time 14, :type :info, :process 1, :f :read, :value nil, :error :timeout}
                {:index 5, :time 15, :type :invoke, :process 11, :f :cas, :value [3 4]}
                {:index 6, :time 16, :type :fail, :process 11, :f :cas, :value [3 4], :error :precondition}
                """);
        assertThat(history.where(3)).isEqualTo("op #3");
        assertThatThrownBy(() -> builder.ok(17, 0, 1L)).isInstanceOf(IllegalStateException.class)
                .hasMessage("process 0 has no pending invocation to complete with :ok");
        builder.invoke(18, 0, Keyword.of("read"), null);
        assertThatThrownBy(() -> builder.invoke(19, 0, Keyword.of("read"), null)).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("process 0 cannot invoke :read while {:index 7, :time 18, :type :invoke");
    }

    @Test
    void writesAndReadsFiles(@TempDir Path dir) throws IOException {
        History history = History.parse(HARNESS_EXAMPLE);
        Path file = dir.resolve("history.edn");
        history.write(file);
        assertThat(Files.readString(file)).isEqualTo(HARNESS_EXAMPLE);
        assertThat(History.read(file)).isEqualTo(history);
        assertThatThrownBy(() -> History.read(dir.resolve("missing.edn"))).isInstanceOf(IOException.class);
    }
}
