package io.tandem.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.history.History;
import io.tandem.history.HistoryBuilder;
import io.tandem.history.HistoryException;
import io.tandem.history.Keyword;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Hand-made histories with known verdicts; each one pins one rule of the checker. */
class LinearizabilityCheckerTest {
    private static final CheckOptions STRICT = CheckOptions.defaults();
    private static final CheckOptions LENIENT = CheckOptions.defaults().withNilReads(NilReads.LENIENT);

    private static CheckResult check(String edn) {
        return LinearizabilityChecker.check(History.parse(edn), Model.casRegister(), STRICT);
    }

    private static CheckResult check(String edn, Model model, CheckOptions options) {
        return LinearizabilityChecker.check(History.parse(edn), model, options);
    }

    @Nested
    class SingleRegister {
        @Test
        void sequentialWriteThenReadIsValid() {
            CheckResult result = check("""
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :ok, :f :write, :value 1}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value 1}
                    """);
            assertThat(result).isInstanceOf(CheckResult.Valid.class);
            assertThat(result.operations()).isEqualTo(2);
        }

        @Test
        void staleReadAfterASecondWriteCompletedIsInvalid() {
            CheckResult result = check("""
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :ok, :f :write, :value 1}
                    {:process 0, :type :invoke, :f :write, :value 2}
                    {:process 0, :type :ok, :f :write, :value 2}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value 1}
                    """);
            Violation v = ((CheckResult.Invalid) result).first();
            assertThat(v.blocked().invokedAt()).isEqualTo(4);
            assertThat(v.linearizedPrefix()).hasSize(2);
            assertThat(v.valueAfterPrefix()).isEqualTo(2L);
            assertThat(result.summary()).contains("process 1 :read -> 1 (:ok, lines 5-6)").contains("register at 2");
        }

        @Test
        void readConcurrentWithAWriteMaySeeTheOldOrTheNewValue() {
            String template = """
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :ok, :f :write, :value 1}
                    {:process 0, :type :invoke, :f :write, :value 2}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value %s}
                    {:process 0, :type :ok, :f :write, :value 2}
                    """;
            assertThat(check(template.formatted("1")).isValid()).isTrue();
            assertThat(check(template.formatted("2")).isValid()).isTrue();
            assertThat(check(template.formatted("3")).isValid()).isFalse();
        }

        @Test
        void realTimeOrderForbidsReadingAWriteInvokedAfterTheReadCompleted() {
            CheckResult result = check("""
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value 1}
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :ok, :f :write, :value 1}
                    """);
            assertThat(result).isInstanceOf(CheckResult.Invalid.class);
        }

        @Test
        void nonLinearizableOrderOfTwoReadsIsInvalid() {
            // While a write of 2 is in flight, one reader sees 2 and a later reader sees the old 1.
            CheckResult result = check("""
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :ok, :f :write, :value 1}
                    {:process 0, :type :invoke, :f :write, :value 2}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value 2}
                    {:process 2, :type :invoke, :f :read, :value nil}
                    {:process 2, :type :ok, :f :read, :value 1}
                    {:process 0, :type :ok, :f :write, :value 2}
                    """);
            Violation v = ((CheckResult.Invalid) result).first();
            assertThat(v.blocked().process()).isEqualTo(2L);
        }

        @Test
        void lostWriteIsInvalidUnlessNilReadsAreLenient() {
            String history = """
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :ok, :f :write, :value 1}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value nil}
                    """;
            assertThat(check(history, Model.casRegister(), STRICT).isValid()).isFalse();
            assertThat(check(history, Model.casRegister(), LENIENT).isValid()).isTrue();
        }

        @Test
        void strictNilReadsMeanTheInitialNil() {
            CheckResult result = check("""
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value nil}
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :ok, :f :write, :value 1}
                    """);
            assertThat(result.isValid()).isTrue();
            assertThat(check("""
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value nil}
                    """, new Model.CasRegister(0L), STRICT).isValid()).isFalse();
        }

        @Test
        void duplicatedCasIsInvalid() {
            String duplicated = """
                    {:process 0, :type :invoke, :f :write, :value 0}
                    {:process 0, :type :ok, :f :write, :value 0}
                    {:process 1, :type :invoke, :f :cas, :value [0 1]}
                    {:process 1, :type :ok, :f :cas, :value [0 1]}
                    {:process 2, :type :invoke, :f :cas, :value [0 1]}
                    {:process 2, :type :ok, :f :cas, :value [0 1]}
                    """;
            assertThat(check(duplicated).isValid()).isFalse();
            // A concurrent write of 0 between them makes both CASes legal.
            assertThat(check("""
                    {:process 0, :type :invoke, :f :write, :value 0}
                    {:process 0, :type :ok, :f :write, :value 0}
                    {:process 1, :type :invoke, :f :cas, :value [0 1]}
                    {:process 3, :type :invoke, :f :write, :value 0}
                    {:process 1, :type :ok, :f :cas, :value [0 1]}
                    {:process 2, :type :invoke, :f :cas, :value [0 1]}
                    {:process 3, :type :ok, :f :write, :value 0}
                    {:process 2, :type :ok, :f :cas, :value [0 1]}
                    """).isValid()).isTrue();
        }

        @Test
        void casAgainstNilWorksWithTheNilInitialValue() {
            assertThat(check("""
                    {:process 1, :type :invoke, :f :cas, :value [nil 3]}
                    {:process 1, :type :ok, :f :cas, :value [nil 3]}
                    {:process 2, :type :invoke, :f :read, :value nil}
                    {:process 2, :type :ok, :f :read, :value 3}
                    """).isValid()).isTrue();
        }

        @Test
        void failedOperationsAreDropped() {
            String failedWrite = """
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :fail, :f :write, :value 1, :error :not-leader}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value %s}
                    """;
            assertThat(check(failedWrite.formatted("nil")).isValid()).isTrue();
            CheckResult sawFailedWrite = check(failedWrite.formatted("1"));
            assertThat(sawFailedWrite.isValid()).isFalse();
            assertThat(sawFailedWrite.operations()).isEqualTo(2);
        }

        @Test
        void infoWriteMayTakeEffect() {
            assertThat(check("""
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :info, :f :write, :value 1, :error :timeout}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value 1}
                    """).isValid()).isTrue();
        }

        @Test
        void infoWriteMayNotTakeEffect() {
            assertThat(check("""
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :info, :f :write, :value 1, :error :timeout}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value nil}
                    """).isValid()).isTrue();
        }

        @Test
        void infoWriteMayTakeEffectLongAfterItsTimeout() {
            // The read of nil comes after the :info completion, and the write still lands later.
            assertThat(check("""
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :info, :f :write, :value 1, :error :timeout}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value nil}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value 1}
                    """).isValid()).isTrue();
        }

        @Test
        void infoWriteCannotBeUndone() {
            CheckResult result = check("""
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :info, :f :write, :value 1, :error :timeout}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value 1}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value nil}
                    """);
            assertThat(result.isValid()).isFalse();
            assertThat(((CheckResult.Invalid) result).first().linearizedPrefix())
                    .extracting(o -> o.invocation().f()).contains(Keyword.of("write"));
        }

        @Test
        void infoWriteCannotTakeEffectBeforeItWasInvoked() {
            assertThat(check("""
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value 1}
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :info, :f :write, :value 1}
                    """).isValid()).isFalse();
        }

        @Test
        void infoCasTakesEffectOnlyIfItsPreconditionHeld() {
            String template = """
                    {:process 0, :type :invoke, :f :write, :value 0}
                    {:process 0, :type :ok, :f :write, :value 0}
                    {:process 1, :type :invoke, :f :cas, :value [%s 5]}
                    {:process 1, :type :info, :f :cas, :value [%<s 5]}
                    {:process 2, :type :invoke, :f :read, :value nil}
                    {:process 2, :type :ok, :f :read, :value %s}
                    """;
            assertThat(check(template.formatted("0", "5")).isValid()).as("cas applied").isTrue();
            assertThat(check(template.formatted("0", "0")).isValid()).as("cas never ran").isTrue();
            assertThat(check(template.formatted("3", "5")).isValid()).as("precondition never held").isFalse();
            assertThat(check(template.formatted("3", "0")).isValid()).as("cas ran and failed").isTrue();
        }

        @Test
        void invocationWithoutCompletionIsTreatedAsInfo() {
            assertThat(check("""
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value 1}
                    {:process 1, :type :invoke, :f :read, :value nil}
                    {:process 1, :type :ok, :f :read, :value 1}
                    """).isValid()).isTrue();
        }

        @Test
        void infoReadsConstrainNothing() {
            assertThat(check("""
                    {:process 0, :type :invoke, :f :read, :value nil}
                    {:process 0, :type :info, :f :read, :value 7}
                    """).isValid()).isTrue();
        }

        @Test
        void nemesisOpsAreIgnoredWhateverTheirValues() {
            assertThat(check("""
                    {:index 0, :type :info, :process :nemesis, :f :start-partition, :value :majority}
                    {:index 1, :type :invoke, :process 0, :f :write, :value 1}
                    {:index 2, :type :info, :process :nemesis, :f :start-partition, :value [:isolated {"n1" #{"n2" "n3"}}]}
                    {:index 3, :type :ok, :process 0, :f :write, :value 1}
                    {:index 4, :type :invoke, :process 1, :f :read, :value nil}
                    {:index 5, :type :ok, :process 1, :f :read, :value 1}
                    """).isValid()).isTrue();
        }

        @Test
        void hugeProcessNumbersAndKnossosOddities() {
            // Read invocations carrying a value, :time and :index keys, :error on failures, huge process ids.
            assertThat(check("""
                    [{:process 18446744073709551617, :type :invoke, :f :write, :value 2, :time 5}
                     {:process 18446744073709551617, :type :ok, :f :write, :value 2, :time 9}
                     {:process 3, :type :invoke, :f :read, :value 2, :index 7}
                     {:process 3, :type :ok, :f :read, :value 2, :index 8}
                     {:process 4, :type :invoke, :f :cas, :value [1 3]}
                     {:process 4, :type :fail, :f :cas, :value [1 3], :error [:precondition "value was 2"]}]
                    """).isValid()).isTrue();
        }

        @Test
        void emptyHistoryIsValid() {
            assertThat(check("")).isEqualTo(new CheckResult.Valid(0, 0, 0));
        }
    }

    @Nested
    class KeyedRegisters {
        @Test
        void keysAreIndependent() {
            // Each key alone is fine; reading key 2's value from key 1 would not be.
            String history = """
                    {:index 0, :time 1, :type :invoke, :process 0, :f :write, :value [1 4]}
                    {:index 1, :time 2, :type :invoke, :process 1, :f :write, :value [2 5]}
                    {:index 2, :time 3, :type :ok, :process 0, :f :write, :value [1 4]}
                    {:index 3, :time 4, :type :ok, :process 1, :f :write, :value [2 5]}
                    {:index 4, :time 5, :type :invoke, :process 0, :f :read, :value [1 nil]}
                    {:index 5, :time 6, :type :ok, :process 0, :f :read, :value [1 %s]}
                    """;
            CheckResult valid = check(history.formatted("4"), Model.kv(), STRICT);
            assertThat(valid).isInstanceOf(CheckResult.Valid.class);
            assertThat(((CheckResult.Valid) valid).keys()).isEqualTo(2);
            CheckResult invalid = check(history.formatted("5"), Model.kv(), STRICT);
            Violation v = ((CheckResult.Invalid) invalid).first();
            assertThat(v.key()).isEqualTo(1L);
            assertThat(invalid.summary()).startsWith("key 1: process 0 :read -> 5");
        }

        @Test
        void theHarnessExampleOfVerificationSection25IsValid() {
            CheckResult result = check("""
                    {:index 0, :time 1021339, :type :invoke, :process 0, :f :write, :value [3 4]}
                    {:index 1, :time 1244871, :type :invoke, :process 1, :f :read, :value [3 nil]}
                    {:index 2, :time 8103220, :type :ok, :process 1, :f :read, :value [3 nil]}
                    {:index 3, :time 9211843, :type :ok, :process 0, :f :write, :value [3 4]}
                    {:index 4, :time 9377003, :type :invoke, :process 2, :f :cas, :value [3 [4 1]]}
                    {:index 5, :time 3009377003, :type :info, :process 2, :f :cas, :value [3 [4 1]], :error :timeout}
                    {:index 6, :time 3009411010, :type :invoke, :process 12, :f :read, :value [3 nil]}
                    """, Model.kv(), STRICT);
            assertThat(result.isValid()).isTrue();
            assertThat(result.operations()).isEqualTo(4);
        }

        @Test
        void violationsInSeveralKeysAreAllReportedEarliestFirst() {
            CheckResult result = check("""
                    {:process 0, :type :invoke, :f :read, :value [:b nil]}
                    {:process 0, :type :ok, :f :read, :value [:b 1]}
                    {:process 1, :type :invoke, :f :read, :value [:a nil]}
                    {:process 1, :type :ok, :f :read, :value [:a 2]}
                    """, Model.kv(), STRICT);
            CheckResult.Invalid invalid = (CheckResult.Invalid) result;
            assertThat(invalid.violations()).extracting(Violation::key).containsExactly(Keyword.of("b"), Keyword.of("a"));
            assertThat(invalid.summary()).endsWith("(and 1 more non-linearizable keys)");
            assertThat(invalid.report()).contains("(key :b)").contains("(key :a)");
        }

        @Test
        void jepsenTupleRecordsAreUnderstood() {
            assertThat(check("""
                    {:process 0, :type :invoke, :f :write, :value #jepsen.independent.Tuple{:key 7, :value 1}}
                    {:process 0, :type :ok, :f :write, :value #jepsen.independent.Tuple{:key 7, :value 1}}
                    {:process 1, :type :invoke, :f :read, :value #jepsen.independent.Tuple{:key 7, :value nil}}
                    {:process 1, :type :ok, :f :read, :value #jepsen.independent.Tuple{:key 7, :value 1}}
                    """, Model.kv(), STRICT).isValid()).isTrue();
        }

        @Test
        void valuesThatAreNotTuplesAreReportedWithTheirLine() {
            assertThatThrownBy(() -> check("""
                    {:process 0, :type :invoke, :f :write, :value [1 2]}
                    {:process 0, :type :ok, :f :write, :value [1 2]}
                    {:process 0, :type :invoke, :f :write, :value 3}
                    """, Model.kv(), STRICT))
                    .isInstanceOf(HistoryException.class)
                    .hasMessageStartingWith("line 3: the kv model needs [key value] tuples");
        }
    }

    @Nested
    class MalformedInput {
        @Test
        void unknownFunctionNamesTheLineAndTheModel() {
            assertThatThrownBy(() -> check("""
                    {:process 0, :type :invoke, :f :add, :value 1}
                    {:process 0, :type :ok, :f :add, :value 1}
                    """))
                    .isInstanceOf(HistoryException.class)
                    .hasMessageContaining("line 2: the cas-register model has no operation :f :add");
        }

        @Test
        void casValueMustBeAPair() {
            assertThatThrownBy(() -> check("""
                    {:process 0, :type :invoke, :f :cas, :value 1}
                    """))
                    .isInstanceOf(HistoryException.class)
                    .hasMessageContaining("line 1: a :cas value must be [old new], found 1");
        }

        @Test
        void completionWithoutInvocationNamesTheLine() {
            assertThatThrownBy(() -> check("""
                    {:process 0, :type :invoke, :f :write, :value 1}
                    {:process 0, :type :ok, :f :write, :value 1}
                    {:process 0, :type :ok, :f :write, :value 1}
                    """))
                    .isInstanceOf(HistoryException.class)
                    .hasMessageStartingWith("line 3: process 0 completes");
        }
    }

    @Nested
    class SearchBudget {
        /** Many concurrent writes and CASes of the same few values, then an impossible read: hard to refute. */
        private History hardHistory() {
            HistoryBuilder h = History.builder();
            long t = 0;
            for (long p = 0; p < 14; p++) {
                h.invoke(++t, p, Keyword.of("write"), p % 3);
            }
            h.invoke(++t, 100, Keyword.of("read"), null);
            h.ok(++t, 100, 7L);
            return h.build();
        }

        @Test
        void exhaustedStepBudgetGivesUnknownNeverValid() {
            CheckResult result = LinearizabilityChecker.check(hardHistory(), Model.casRegister(),
                    STRICT.withMaxSteps(50));
            assertThat(result).isInstanceOf(CheckResult.Unknown.class);
            assertThat(result.summary()).contains("search budget of 50 steps exhausted").contains("the register");
        }

        @Test
        void withEnoughBudgetTheSameHistoryIsDecided() {
            CheckResult result = LinearizabilityChecker.check(hardHistory(), Model.casRegister(), STRICT);
            assertThat(result).isInstanceOf(CheckResult.Invalid.class);
        }

        /** 24 pending writes of distinct values before an impossible read: about 2^24 configurations to refute. */
        private History exponentialHistory() {
            HistoryBuilder h = History.builder();
            long t = 0;
            for (long p = 0; p < 24; p++) {
                h.invoke(++t, p, Keyword.of("write"), p);
            }
            h.invoke(++t, 100, Keyword.of("read"), null);
            h.ok(++t, 100, 99L);
            return h.build();
        }

        @Test
        void memoryLimitGivesUnknown() {
            CheckResult result = LinearizabilityChecker.check(exponentialHistory(), Model.casRegister(),
                    STRICT.withMaxMemoryBytes(100_000));
            assertThat(result).isInstanceOf(CheckResult.Unknown.class);
            assertThat(result.summary()).isEqualTo("memory limit of 0 MiB for remembering dead ends reached while "
                    + "checking the register (25 operations)");
        }

        @Test
        void timeoutGivesUnknown() {
            CheckResult result = LinearizabilityChecker.check(exponentialHistory(), Model.casRegister(),
                    STRICT.withTimeout(Duration.ofMillis(1)));
            assertThat(result).isInstanceOf(CheckResult.Unknown.class);
            assertThat(result.summary()).startsWith("timed out after PT0.001S");
        }
    }

    @Test
    void inMemoryHistoriesWithIntegerValuesMatchParsedOnes() {
        HistoryBuilder h = History.builder();
        h.invoke(1, 0, Keyword.of("write"), 1); // Integer, not Long
        h.ok(2, 0, 1);
        h.invoke(3, 1, Keyword.of("cas"), List.of(1, 2));
        h.ok(4, 1, List.of(1, 2));
        h.invoke(5, 2, Keyword.of("read"), null);
        h.ok(6, 2, 2L);
        CheckResult result = LinearizabilityChecker.check(h.build(), Model.casRegister());
        assertThat(result.isValid()).isTrue();
        History reparsed = History.parse(h.build().toEdn());
        assertThat(LinearizabilityChecker.check(reparsed, Model.casRegister()).isValid()).isTrue();
    }

    @Test
    void violationReportNamesPrefixConcurrentOpsAndLines() {
        CheckResult result = check("""
                {:process 0, :type :invoke, :f :write, :value 1}
                {:process 0, :type :ok, :f :write, :value 1}
                {:process 2, :type :invoke, :f :write, :value 3}
                {:process 1, :type :invoke, :f :read, :value nil}
                {:process 1, :type :ok, :f :read, :value 2}
                """);
        String report = ((CheckResult.Invalid) result).report();
        assertThat(report).isEqualTo("""
                Not linearizable: no linearization can include process 1 :read -> 2 (:ok, lines 4-5).
                Longest linearizable prefix found: 2 of 3 operations (model cas-register, initial value nil):
                  1. process 0 :write 1 (:ok, lines 1-2)
                  2. process 2 :write 3 (never completed, invoked at line 3)
                after which the register holds 3.
                Operations concurrent with it:
                  process 2 :write 3 (never completed, invoked at line 3) [in the prefix]""");
        assertThat(result.summary()).isEqualTo("process 1 :read -> 2 (:ok, lines 4-5) cannot be linearized; the longest "
                + "linearizable prefix found has 2 of 3 operations and leaves the register at 3; concurrent: "
                + "process 2 :write 3 (never completed, invoked at line 3)");
    }
}
