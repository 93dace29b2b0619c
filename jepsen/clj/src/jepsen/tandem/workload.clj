(ns jepsen.tandem.workload
  "The workloads, built from the shared specs in ../workloads/*.edn (the local
  runner reads the same files), with the same key layout on the KV store as the
  local runner, so histories of both harnesses mean the same thing:

    register  independent linearizable registers, checked by Knossos
    set       grow-only sets (one KV key per element, read by one range scan),
              checked by set-full with :linearizable? true
    append    single-key list appends (read, then compare-and-set), checked by
              Elle's list-append checker for strict serializability"
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [jepsen [checker :as checker]
                    [client :as client]
                    [generator :as gen]
                    [independent :as independent]]
            [jepsen.checker.timeline :as timeline]
            [jepsen.tests.cycle.append :as append]
            [jepsen.tandem.client :as tc]
            [knossos.model :as model]))

(defn load-spec
  "Reads the shared spec ../workloads/<name>.edn (relative to jepsen/clj). A
  workload without a spec file (append) gets an empty map."
  [wname]
  (let [f (io/file ".." "workloads" (str wname ".edn"))]
    (if (.exists f)
      (edn/read-string (slurp f))
      {})))

(defn per-nodes
  "A count from a spec: 5, or \"2n\" for twice the number of nodes."
  [x node-count]
  (cond (integer? x) x
        (string? x)  (if-let [[_ k] (re-matches #"(\d*)n" (str/trim x))]
                       (* (if (str/blank? k) 1 (Long/parseLong k)) node-count)
                       (Long/parseLong (str/trim x)))
        :else        (throw (ex-info "not a count" {:value x}))))

;; --------------------------------------------------------------- register

(defn register-key [k] (str "jepsen/r/" k))

(defn parse-long-or-nil [s] (when s (Long/parseLong s)))

(defrecord RegisterClient [conn]
  client/Client
  (open! [this test node]
    (assoc this :conn (tc/connect node)))

  (setup! [this test])

  (invoke! [this test op]
    (let [[k v] (:value op)]
      (tc/with-errors op (= :read (:f op))
        (case (:f op)
          :read  (assoc op :type :ok
                        :value (independent/tuple k (parse-long-or-nil (tc/get-string conn (register-key k)))))
          :write (do (tc/put-string! conn (register-key k) (str v))
                     (assoc op :type :ok))
          :cas   (let [[old new] v]
                   (if (tc/cas-string! conn (register-key k) (str old) (str new))
                     (assoc op :type :ok)
                     (assoc op :type :fail :error :cas-mismatch)))))))

  (teardown! [this test])

  (close! [this test]
    (tc/close! conn)))

(defn register
  "jepsen.tests.linearizable-register, sized by the spec: threads work in
  groups of :threads-per-key on one key at a time, :readers-per-key of them
  only read, the others draw from :mix; about :ops-per-key ops per key."
  [opts]
  (let [spec    (:spec opts)
        n       (count (:nodes opts))
        values  (:values spec 5)
        r       (fn [] {:type :invoke, :f :read, :value nil})
        w       (fn [] {:type :invoke, :f :write, :value (rand-int values)})
        cas     (fn [] {:type :invoke, :f :cas, :value [(rand-int values) (rand-int values)]})
        mix     (mapv {:read r, :write w, :cas cas} (:mix spec [:write :cas :cas]))
        threads (per-nodes (:threads-per-key spec "2n") n)
        readers (per-nodes (:readers-per-key spec "n") n)
        per-key (:ops-per-key spec 200)]
    {:client    (RegisterClient. nil)
     :checker   (independent/checker
                  (checker/compose
                    {:linear   (checker/linearizable {:model     (model/cas-register)
                                                      :algorithm :linear})
                     :timeline (timeline/html)}))
     :generator (independent/concurrent-generator
                  threads
                  (range)
                  (fn [k]
                    (->> (gen/reserve readers r (gen/mix mix))
                         ;; jittered so keys don't all finish at the same moment
                         (gen/limit (long (* (+ 0.9 (rand 0.1)) per-key)))
                         (gen/process-limit 20))))}))

;; --------------------------------------------------------------- set

(defn set-prefix [s] (format "jepsen/s/%06d/" s))
(defn element-key [s e] (str (set-prefix s) (format "%010d" e)))

(defrecord SetClient [conn]
  client/Client
  (open! [this test node]
    (assoc this :conn (tc/connect node)))

  (setup! [this test])

  (invoke! [this test op]
    (let [[s e] (:value op)]
      (tc/with-errors op (= :read (:f op))
        (case (:f op)
          :add  (do (tc/put-string! conn (element-key s e) (str e))
                    (assoc op :type :ok))
          ;; '0' follows '/': [prefix, prefix with its '/' replaced by '0') covers the set's keys
          :read (let [from   (set-prefix s)
                      to     (str (subs from 0 (dec (count from))) "0")
                      values (tc/scan-values conn from to)]
                  (assoc op :type :ok
                         :value (independent/tuple s (into (sorted-set) (map #(Long/parseLong %)) values))))))))

  (teardown! [this test])

  (close! [this test]
    (tc/close! conn)))

(defn set-workload
  "Grow-only sets: element e goes to set (quot e :elements-per-set); reads
  scan one set; after healing every set is read until a read succeeds."
  [opts]
  (let [spec      (:spec opts)
        per-set   (:elements-per-set spec 300)
        read-frac (:read-fraction spec 0.2)
        next-el   (atom -1)]
    {:client          (SetClient. nil)
     :checker         (independent/checker (checker/set-full {:linearizable? true}))
     :generator       (fn []
                        (if (< (rand) read-frac)
                          {:type :invoke, :f :read, :value (independent/tuple (quot (max 0 @next-el) per-set) nil)}
                          (let [e (swap! next-el inc)]
                            {:type :invoke, :f :add, :value (independent/tuple (quot e per-set) e)})))
     ;; A delay is realized only when the final phase starts, once the last set is known.
     :final-generator (delay
                        (independent/sequential-generator
                          (range (inc (quot (max 0 @next-el) per-set)))
                          (fn [_] (gen/until-ok (gen/repeat {:f :read})))))}))

;; --------------------------------------------------------------- append

(defn list-key [k] (str "jepsen/a/" k))

(defn parse-list
  [s]
  (if (str/blank? s) [] (mapv #(Long/parseLong %) (str/split s #","))))

(def max-cas-attempts
  "An append retries its compare-and-set this often when another append got in
  first; each failed attempt had no effect, so retrying is safe."
  20)

(defn append!
  "Appends v to the list at k: read, then compare-and-set, retried on conflict.
  True if it took effect."
  [conn k v]
  (loop [attempt 0]
    (when (< attempt max-cas-attempts)
      (let [cur  (tc/get-string conn (list-key k))
            next (if (str/blank? cur) (str v) (str cur "," v))]
        (if (tc/cas-string! conn (list-key k) cur next)
          true
          (recur (inc attempt)))))))

(defrecord AppendClient [conn]
  client/Client
  (open! [this test node]
    (assoc this :conn (tc/connect node)))

  (setup! [this test])

  (invoke! [this test op]
    ;; Transactions hold one micro-op (the store has no multi-key transactions).
    (let [[[f k v] :as txn] (:value op)]
      (assert (= 1 (count txn)) "the append workload runs single-operation transactions")
      (tc/with-errors op (= :r f)
        (case f
          :r      (assoc op :type :ok :value [[:r k (parse-list (tc/get-string conn (list-key k)))]])
          :append (if (append! conn k v)
                    (assoc op :type :ok)
                    (assoc op :type :fail :error :too-much-contention))))))

  (teardown! [this test])

  (close! [this test]
    (tc/close! conn)))

(defrecord SingleReadFinalGen []
  ;; Like jepsen.tests.cycle.core/final-gen, but one key per transaction.
  gen/Generator
  (op [this test ctx]
    (when-let [mk (:max-key ctx)]
      (gen/op (map (fn [k] {:f :txn, :value [[:r k nil]]}) (range (inc mk)))
              test ctx)))

  (update [this test ctx event]
    this))

(defn append
  "Elle's list-append with one micro-op per transaction: on a linearizable
  store every history must be strict serializable."
  [opts]
  (let [t (append/test {:key-count          8
                        :min-txn-length     1
                        :max-txn-length     1
                        :max-writes-per-key 64
                        :consistency-models [:strict-serializable]})]
    {:client          (AppendClient. nil)
     :checker         (:checker t)
     :generator       (:generator t)
     :wrap-generator  (:wrap-generator t)
     :final-generator (SingleReadFinalGen.)}))
