(ns jepsen.tandem.workload-test
  "Unit tests of the pure parts (lein test; needs the dependencies from Clojars)."
  (:require [clojure.test :refer [deftest is testing]]
            [jepsen.tandem :as tandem]
            [jepsen.tandem [nemesis :as nemesis]
                           [workload :as workload]]))

(deftest counts-relative-to-nodes
  (is (= 10 (workload/per-nodes "2n" 5)))
  (is (= 5 (workload/per-nodes "n" 5)))
  (is (= 7 (workload/per-nodes 7 5)))
  (is (= 4 (workload/per-nodes "4" 5))))

(deftest shared-specs-read-with-clojure-edn
  (let [r (workload/load-spec "register")
        s (workload/load-spec "set")]
    (is (= :register (:workload r)))
    (is (= [:write :cas :cas] (:mix r)))
    (is (= #{:partition :kill :pause} (get-in r [:nemesis :faults])))
    (is (= :set (:workload s)))
    (is (= {} (workload/load-spec "append")))))

(deftest packet-behaviours-become-netem-options
  (is (= {:delay {:time :50ms, :jitter :10ms}}
         (nemesis/netem-behavior {:delay {:time-ms 50 :jitter-ms 10}})))
  (is (= {:loss {:percent :20%}} (nemesis/netem-behavior {:loss {:percent 20}}))))

(deftest fault-lists
  (is (= tandem/all-faults (tandem/parse-faults "all")))
  (is (= #{} (tandem/parse-faults "none")))
  (is (= #{:partition :clock} (tandem/parse-faults "partition, clock"))))

(deftest key-layout-matches-the-local-runner
  (is (= "jepsen/r/12" (workload/register-key 12)))
  (is (= "jepsen/s/000003/0000000042" (workload/element-key 3 42)))
  (is (= [1 2 3] (workload/parse-list "1,2,3")))
  (is (= [] (workload/parse-list nil))))
