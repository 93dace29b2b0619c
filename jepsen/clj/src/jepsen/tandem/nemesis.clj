(ns jepsen.tandem.nemesis
  "The fault schedule: Jepsen's combined packages (partitions, kills, pauses,
  netem packet faults, and with :system-clock its system clock changes) plus
  Tandem's own: a CPU quota and a disk throttle through the server's cgroup,
  an engine clock offset (:clock, as in the local runner) and membership
  changes through the server's admin requests. Every package
  flip-flops on its own staggered schedule (nc/compose-packages), as in the
  local runner."
  (:require [clojure.string :as str]
            [clojure.tools.logging :refer [info warn]]
            [jepsen [control :as c]
                    [generator :as gen]
                    [nemesis :as n]
                    [util :as util]]
            [jepsen.nemesis.combined :as nc]
            [jepsen.tandem [client :as tc]
                           [db :as db]]))

(def jepsen-faults
  "Our fault names that Jepsen's combined nemesis implements, and its names for them."
  {:partition :partition, :kill :kill, :pause :pause, :packet :packet, :system-clock :clock})

(def jepsen-partition-specs
  "Partition specs Jepsen's grudge function knows (the local runner's :one-way
  has no counterpart there)."
  #{:one :majority :majorities-ring :minority-third :primaries})

(defn netem-behavior
  "A packet behaviour from the shared spec ({:delay {:time-ms 50 :jitter-ms 10}})
  in jepsen.net's form ({:delay {:time :50ms :jitter :10ms}})."
  [b]
  (into {}
        (for [[k v] b]
          [k (case k
               :delay (cond-> {}
                        (:time-ms v)   (assoc :time (keyword (str (:time-ms v) "ms")))
                        (:jitter-ms v) (assoc :jitter (keyword (str (:jitter-ms v) "ms"))))
               (if-let [p (:percent v)]
                 {:percent (keyword (str (long p) "%"))}
                 v))])))

(defn- targets
  [spec fault default]
  (get-in spec [fault :targets] default))

;; --------------------------------------------------------------- cgroup faults

(defn- cpu-limit!
  "Limits the server's cgroup to percent of one CPU; nil lifts the limit."
  [percent]
  (c/su
    (if (db/cgroup-v2?)
      (c/exec :sh :-c (str "echo '" (if percent (str (* 1000 percent) " 100000") "max 100000")
                           "' > /sys/fs/cgroup/" db/cgroup "/cpu.max"))
      (do (c/exec :sh :-c (str "echo 100000 > /sys/fs/cgroup/cpu/" db/cgroup "/cpu.cfs_period_us"))
          (c/exec :sh :-c (str "echo " (if percent (* 1000 percent) -1) " > /sys/fs/cgroup/cpu/" db/cgroup "/cpu.cfs_quota_us"))))))

(defn- data-disk
  "MAJ:MIN of the whole disk that holds the server's data."
  []
  (let [source (str/trim (c/exec :findmnt :-no :SOURCE :-T db/dir))
        parent (str/trim (c/exec :lsblk :-no :PKNAME source))
        dev    (if (str/blank? parent) source (str "/dev/" parent))]
    (str/trim (c/exec :lsblk :-dno "MAJ:MIN" dev))))

(defn- disk-limit!
  "Throttles the server's reads and writes on its data disk; nil lifts it."
  [bytes-per-second iops]
  (c/su
    (let [mm (data-disk)]
      (if (db/cgroup-v2?)
        (c/exec :sh :-c (str "echo '" mm
                             (if bytes-per-second
                               (str " rbps=" bytes-per-second " wbps=" bytes-per-second " riops=" iops " wiops=" iops)
                               " rbps=max wbps=max riops=max wiops=max")
                             "' > /sys/fs/cgroup/" db/cgroup "/io.max"))
        (doseq [f ["read_bps_device" "write_bps_device" "read_iops_device" "write_iops_device"]]
          (c/exec :sh :-c (str "echo '" mm " " (if bytes-per-second (if (str/includes? f "iops") iops bytes-per-second) 0)
                               "' > /sys/fs/cgroup/blkio/" db/cgroup "/blkio.throttle." f)))))))

(defn- cgroup-nemesis
  "Starts and stops a cgroup limit on the targets: `start!` and `stop!` run on a node."
  [db start-f stop-f start! stop!]
  (reify
    n/Reflection
    (fs [this] [start-f stop-f])

    n/Nemesis
    (setup! [this test] this)

    (invoke! [this test op]
      (condp = (:f op)
        start-f (let [nodes (nc/db-nodes test db (:value op))]
                  (assoc op :value (c/on-nodes test nodes (fn [test node] (start!) :throttled))))
        stop-f  (assoc op :value (c/on-nodes test (fn [test node] (stop!) :restored)))))

    (teardown! [this test]
      (c/on-nodes test (fn [test node] (stop!))))))

(defn- flip-flop-package
  "A package that flip-flops start (drawing a target) and stop."
  [opts fault start-f stop-f nemesis default-targets color]
  (let [ts    (targets (:spec opts) fault default-targets)
        start (fn [_ _] {:type :info, :f start-f, :value (rand-nth ts)})
        stop  {:type :info, :f stop-f, :value nil}]
    {:generator       (->> (gen/flip-flop start (gen/repeat stop))
                           (gen/stagger (:interval opts)))
     :final-generator stop
     :nemesis         nemesis
     :perf            #{{:name (name fault), :start #{start-f}, :stop #{stop-f}, :color color}}}))

(defn slow-cpu-package
  [opts]
  (let [percent (get-in opts [:spec :slow-cpu :percent] 10)]
    (flip-flop-package opts :slow-cpu :start-slow-cpu :stop-slow-cpu
                       (cgroup-nemesis (:db opts) :start-slow-cpu :stop-slow-cpu
                                       #(cpu-limit! percent) #(cpu-limit! nil))
                       [:one :minority :primaries] "#A0E9D4")))

(defn slow-disk-package
  [opts]
  (let [bps  (get-in opts [:spec :slow-disk :bytes-per-second] 1048576)
        iops (get-in opts [:spec :slow-disk :iops] 50)]
    (flip-flop-package opts :slow-disk :start-slow-disk :stop-slow-disk
                       (cgroup-nemesis (:db opts) :start-slow-disk :stop-slow-disk
                                       #(disk-limit! bps iops) #(disk-limit! nil nil))
                       [:one :minority :primaries] "#B7E9A0")))

;; --------------------------------------------------------------- engine clock

(defn engine-clock-nemesis
  "Offsets the engine clock of the targets by up to max-ms either way."
  [db max-ms]
  (reify
    n/Reflection
    (fs [this] [:bump-engine-clock :reset-engine-clock])

    n/Nemesis
    (setup! [this test] this)

    (invoke! [this test op]
      (case (:f op)
        :bump-engine-clock
        (let [nodes (nc/db-nodes test db (:value op))]
          (assoc op :value (into (sorted-map)
                                 (for [node nodes]
                                   (let [offset (- (rand-int (inc (* 2 max-ms))) max-ms)]
                                     (tc/set-clock-offset! test node offset)
                                     [node offset])))))
        :reset-engine-clock
        (assoc op :value (into (sorted-map)
                               (for [node (:nodes test)]
                                 [node (try (tc/set-clock-offset! test node 0)
                                            0
                                            (catch RuntimeException e
                                              [:error (.getMessage e)]))])))))

    (teardown! [this test])))

(defn engine-clock-package
  [opts]
  (flip-flop-package opts :clock :bump-engine-clock :reset-engine-clock
                     (engine-clock-nemesis (:db opts) (get-in opts [:spec :clock :max-offset-ms] 2000))
                     [:one :minority :all] "#E9C9A0"))

;; --------------------------------------------------------------- membership

(defn- message-has?
  [^Throwable e text]
  (str/includes? (str (.getMessage e)) text))

(defn member-nemesis
  "Removes a voter (:shrink) and adds it back as a learner that is promoted
  once it has caught up (:grow). One node is out at a time. A removal whose
  answer was lost may still have been committed, so from the moment it is asked
  for the node counts as out, and :grow recognises a node that is still in
  (the engine's refusals say \"is already a member\" and \"is not a learner\")."
  []
  (let [removed (atom nil)]
    (reify
      n/Reflection
      (fs [this] [:shrink :grow])

      n/Nemesis
      (setup! [this test] this)

      (invoke! [this test op]
        (case (:f op)
          :shrink (if @removed
                    (assoc op :value [:already-removed @removed])
                    (let [node (rand-nth (:nodes test))]
                      (reset! removed node)
                      (try (tc/change-membership! test :remove node)
                           (assoc op :value {:removed node})
                           (catch RuntimeException e
                             (if (message-has? e "is not a member")
                               (assoc op :value {:removed node})
                               (assoc op :value [:maybe-removed node (.getMessage e)]))))))
          :grow   (if-let [node @removed]
                    (do (try (tc/change-membership! test :add-learner node)
                             (catch RuntimeException e
                               (when-not (message-has? e "is already a member") (throw e))))
                        ;; promotion is refused until the learner has caught up
                        (util/await-fn (fn []
                                         (try (tc/change-membership! test :promote node)
                                              (catch RuntimeException e
                                                (when-not (message-has? e "is not a learner") (throw e)))))
                                       {:retry-interval 500, :timeout 30000})
                        (reset! removed nil)
                        (assoc op :value {:added node}))
                    (assoc op :value :no-change))))

      (teardown! [this test]))))

(defn member-package
  [opts]
  (let [stop {:type :info, :f :grow, :value nil}]
    {:generator       (->> (gen/flip-flop (fn [_ _] {:type :info, :f :shrink, :value nil})
                                          (gen/repeat stop))
                           (gen/stagger (:interval opts)))
     :final-generator stop
     :nemesis         (member-nemesis)
     :perf            #{{:name "member", :start #{:shrink}, :stop #{:grow}, :color "#D0D0D0"}}}))

;; --------------------------------------------------------------- all together

(defn package
  "The nemesis package for opts: :db, :faults, :interval and :spec (the
  workload spec's :nemesis map)."
  [opts]
  (let [faults (set (:faults opts))
        spec   (:spec opts)
        jepsen (nc/nemesis-package
                 {:db        (:db opts)
                  :interval  (:interval opts)
                  :faults    (set (keep jepsen-faults faults))
                  :partition {:targets (vec (filter jepsen-partition-specs
                                                    (targets spec :partition [:one :majority :majorities-ring :primaries])))}
                  :kill      {:targets (targets spec :kill [:one :minority :primaries :all])}
                  :pause     {:targets (targets spec :pause [:one :minority :primaries])}
                  :packet    {:targets   (targets spec :packet [:one :all])
                              :behaviors (mapv netem-behavior (get-in spec [:packet :behaviors] [{:delay {}}]))}})]
    (nc/compose-packages
      (cond-> [jepsen]
        (:slow-cpu faults)     (conj (slow-cpu-package opts))
        (:slow-disk faults)    (conj (slow-disk-package opts))
        (:clock faults)        (conj (engine-clock-package opts))
        (:member faults)       (conj (member-package opts))))))
