(ns jepsen.tandem
  "Jepsen tests for Tandem's replicated key-value store.

  The workloads and fault schedules come from the shared specs in
  ../workloads/*.edn, which the local runner (io.tandem.jepsen, Java) reads
  too, so both harnesses run the same operations with the same process model
  and write the same history format.

      lein run test --nodes-file ~/nodes --server-jar ../../kvstore/target/tandem.jar \\
                    --workload register --nemesis partition,kill,pause,packet --time-limit 300"
  (:require [clojure.string :as str]
            [clojure.tools.logging :refer [info]]
            [jepsen [checker :as checker]
                    [cli :as cli]
                    [generator :as gen]
                    [tests :as tests]]
            [jepsen.checker.timeline :as timeline]
            [jepsen.os.debian :as debian]
            [jepsen.tandem [db :as db]
                           [nemesis :as nemesis]
                           [workload :as workload]]))

(def workloads
  "The workloads this suite runs, by name."
  {:register workload/register
   :set      workload/set-workload
   :append   workload/append})

(def all-faults
  "Every fault the suite knows, named as in the shared specs and the local
  runner. :packet is netem here (real clusters have it); :clock shifts Tandem's
  engine clock through the admin request (as the local runner does);
  :system-clock is Jepsen's clock nemesis, which moves the nodes' system clocks
  (real VMs only, not containers); :member removes and re-adds a voter (Raft
  only)."
  #{:partition :kill :pause :packet :clock :system-clock :slow-cpu :slow-disk :member})

(defn parse-faults
  "Parses --nemesis: a comma-separated list, `all` or `none`."
  [s]
  (let [names (->> (str/split s #",") (map str/trim) (remove str/blank?))]
    (cond (= names ["all"])  all-faults
          (= names ["none"]) #{}
          :else              (set (map keyword names)))))

(defn tandem-test
  "Builds a test map from parsed CLI options."
  [opts]
  (let [wname    (:workload opts)
        spec     (workload/load-spec (name wname))
        opts     (merge {:rate (:rate spec 100)} opts)
        wl       ((workloads wname) (assoc opts :spec spec))
        db       (db/db opts)
        faults   (or (:faults opts) (:faults (:nemesis spec)))
        nem      (nemesis/package (assoc opts
                                         :db db
                                         :faults (set faults)
                                         :spec (:nemesis spec)
                                         :interval (or (:interval opts) (:interval (:nemesis spec) 10))))]
    (merge tests/noop-test
           opts
           {:name       (str "tandem " (name (:protocol opts)) " " (name wname) " "
                             (str/join "," (map name (sort faults))))
            :os         debian/os
            :db         db
            :client     (:client wl)
            :nemesis    (:nemesis nem)
            :checker    (checker/compose
                          {:perf       (checker/perf {:nemeses (:perf nem)})
                           :stats      (checker/stats)
                           :exceptions (checker/unhandled-exceptions)
                           :timeline   (timeline/html)
                           :logs       (checker/log-file-pattern #"(?i)\bERROR\b.*(Exception|failed)" db/log-file-name)
                           :workload   (:checker wl)})
            ;; :wrap-generator (append's max-key tracker) sees the whole run, final reads included.
            :generator  ((or (:wrap-generator wl) identity)
                         (gen/phases
                           (->> (:generator wl)
                                (gen/stagger (/ (:rate opts)))
                                (gen/nemesis (:generator nem))
                                (gen/time-limit (:time-limit opts)))
                           (gen/log "Healing the cluster")
                           (gen/nemesis (:final-generator nem))
                           (gen/log "Waiting for recovery")
                           (gen/sleep (:recovery spec 10))
                           (gen/clients (:final-generator wl))))})))

(def cli-opts
  "Options beyond Jepsen's own (--nodes, --time-limit, --concurrency, ...)."
  [[nil "--workload NAME" "register, set or append."
    :default  :register
    :parse-fn keyword
    :validate [workloads (cli/one-of workloads)]]
   [nil "--protocol NAME" "The engine every server runs: raft, multipaxos, toy-pb, ..."
    :default "raft"]
   [nil "--concurrency NUMBER" "Client threads: an integer, optionally followed by n (2n = twice the nodes)."
    :default  "2n"
    :validate [(partial re-find #"^\d+n?$") "Must be an integer, optionally followed by n."]]
   [nil "--nemesis FAULTS" "Comma-separated faults, all or none (default: the workload spec's)."
    :parse-fn parse-faults
    :assoc-fn (fn [m _ v] (assoc m :faults v))]
   [nil "--interval SECONDS" "Mean seconds between two ops of one fault package."
    :parse-fn read-string]
   [nil "--rate HZ" "Total operations per second (default: the spec's)."
    :parse-fn read-string]
   [nil "--server-jar FILE" "The server jar on the control node (kvstore/target/tandem.jar)."
    :default "../../kvstore/target/tandem.jar"]
   [nil "--jdk-url URL" "A JDK 25 tarball for the nodes (skipped when --java names an existing java)."
    :default "https://api.adoptium.net/v3/binary/latest/25/ga/linux/x64/jdk/hotspot/normal/eclipse"]
   [nil "--java FILE" "The java on the nodes; when it exists, no JDK is installed."
    :default "/opt/tandem/jdk/bin/java"]])

(defn all-tests
  "test-all: every workload against every fault on its own, then all at once."
  [opts]
  (for [w     (keys workloads)
        fault (concat (map hash-set [:partition :kill :pause :packet :member]) [all-faults])
        i     (range (:test-count opts))]
    (tandem-test (assoc opts :workload w :faults fault))))

(defn -main
  "Handles command line arguments: test, test-all, analyze, serve."
  [& args]
  (cli/run! (merge (cli/single-test-cmd {:test-fn  tandem-test
                                         :opt-spec cli-opts})
                   (cli/test-all-cmd {:tests-fn all-tests
                                      :opt-spec cli-opts})
                   (cli/serve-cmd))
            args))
