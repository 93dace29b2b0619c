(defproject io.tandem/jepsen-tandem "0.1.0-SNAPSHOT"
  :description "Jepsen tests for Tandem's replicated key-value store (register, set and list-append workloads under partitions, kills, pauses, netem, clock and membership faults)."
  :url "https://github.com/tandem-replication/tandem"
  :license {:name "Apache License 2.0"
            :url  "https://www.apache.org/licenses/LICENSE-2.0"}
  ;; Jepsen 0.3.13 (with Knossos 0.3.16 and Elle 0.2.7) comes from Clojars; it is compiled for Java 21,
  ;; so the control node needs a JDK 21 or newer (Tandem's client needs 25).
  ;; Tandem's client library comes from the local Maven repository: run
  ;;   ./mvnw -q -B -DskipTests install
  ;; at the repository root first (it also builds kvstore/target/tandem.jar, the server the test installs).
  :dependencies [[org.clojure/clojure "1.12.5"]
                 [jepsen "0.3.13"]
                 [io.tandem/tandem-kvstore "0.1.0-SNAPSHOT"
                  ;; Jepsen logs through logback; keep the server's simple binding out of the control node.
                  :exclusions [org.slf4j/slf4j-simple]]]
  :main jepsen.tandem
  :jvm-opts ["-Djava.awt.headless=true"
             "-Xmx4g"
             "--enable-native-access=ALL-UNNAMED"
             "--sun-misc-unsafe-memory-access=allow"]
  :repl-options {:init-ns jepsen.tandem}
  :test-selectors {:default (complement :integration)})
