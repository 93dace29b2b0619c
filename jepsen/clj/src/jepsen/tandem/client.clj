(ns jepsen.tandem.client
  "Tandem's Java client (io.tandem.kv.client.TandemKvClient) by interop: one
  client per Jepsen process, bound to that process's node (it follows the
  node's leader redirects), plus the completion discipline: :fail only when an
  operation definitely did not happen, :info when it may have."
  (:require [clojure.string :as str]
            [clojure.tools.logging :refer [info warn]]
            [jepsen.control.net :as cn])
  (:import (io.tandem.kv KvException
                         KvResult$Page)
           (io.tandem.kv.btree Entry)
           (io.tandem.kv.client CasResult
                                KvClientConfig
                                KvConnectionException
                                KvRejectedException
                                KvTimeoutException
                                TandemKvClient)
           (io.tandem.kv.net ErrorCode
                             MembershipChange
                             NodeStatus)
           (io.tandem.transport Endpoint)
           (java.nio.charset StandardCharsets)
           (java.time Duration)
           (java.util List
                      Optional)))

(def peer-port
  "Where servers talk to each other."
  7000)

(def client-port
  "Where servers take client connections (the server's default: peer port + 1000)."
  8000)

(defn endpoint
  "The client address of a node."
  [node]
  (Endpoint. (cn/ip node) (int client-port)))

(defn connect
  "A client for one process, talking to `node` first. Its request timeout stays
  below Jepsen's, so a timeout comes back as the client's typed error, which
  says whether a write may have been applied."
  ([node]
   (connect node 4000))
  ([node timeout-ms]
   (TandemKvClient/connect
     (-> (KvClientConfig/of ^List (list (endpoint node)))
         (.withRequestTimeout (Duration/ofMillis timeout-ms))
         (.withAttemptTimeout (Duration/ofMillis (max 200 (quot timeout-ms 3))))
         (.withConnectTimeout (Duration/ofMillis 500))))))

(defn admin
  "A client of every node, for status and admin requests."
  [test]
  (TandemKvClient/connect
    (-> (KvClientConfig/of ^List (map endpoint (:nodes test)))
        (.withRequestTimeout (Duration/ofSeconds 5))
        (.withAttemptTimeout (Duration/ofSeconds 2)))))

(defn close!
  [^TandemKvClient client]
  (when client (.close client)))

(defn ->bytes ^bytes [^String s] (.getBytes s StandardCharsets/UTF_8))
(defn ->str ^String [^bytes b] (String. b StandardCharsets/UTF_8))

(defn get-string
  "The value of key as a string, or nil if absent (a linearizable read)."
  [^TandemKvClient c ^String k]
  (let [^Optional v (.get c (->bytes k))]
    (when (.isPresent v) (->str (.get v)))))

(defn put-string!
  [^TandemKvClient c ^String k ^String v]
  (.put c (->bytes k) (->bytes v))
  nil)

(defn cas-string!
  "Compare-and-set; `expected` nil means absent. True if it took effect."
  [^TandemKvClient c ^String k expected ^String new-value]
  (let [^CasResult r (.compareAndSet c (->bytes k) (when expected (->bytes expected)) (->bytes new-value))]
    (.succeeded r)))

(defn scan-values
  "The values of every key in [from, to), from one page (so one linearizable
  read); throws if the range does not fit in one page."
  [^TandemKvClient c ^String from ^String to]
  (let [^KvResult$Page page (.scan c (->bytes from) (->bytes to) (int 1000))]
    (when (.hasMore page)
      (throw (ex-info "the range does not fit in one scan page" {:type ::multi-page})))
    (mapv (fn [^Entry e] (->str (.value e))) (.entries page))))

(def definite-rejections
  "Rejections that mean the request was refused before or instead of being
  applied."
  #{ErrorCode/REFUSED ErrorCode/BAD_REQUEST ErrorCode/UNSUPPORTED ErrorCode/UNSUPPORTED_VERSION
    ErrorCode/OVERLOADED ErrorCode/NOT_LEADER ErrorCode/UNAVAILABLE ErrorCode/NODE_STOPPED})

(defmacro with-errors
  "Evaluates body, which returns a completed op. Turns the client's exceptions
  into completions of `op`: :fail when the operation definitely did not take
  effect, :info when it may have. An idempotent operation (a read) cannot have
  taken effect, so it always fails."
  [op idempotent? & body]
  `(let [op# ~op
         idempotent?# ~idempotent?]
     (try
       ~@body
       (catch KvTimeoutException e#
         (assoc op#
                :type  (if (or idempotent?# (not (.inDoubt e#))) :fail :info)
                :error [:timeout (.getMessage e#)]))
       (catch KvRejectedException e#
         (assoc op#
                :type  (if (or idempotent?# (contains? definite-rejections (.code e#))) :fail :info)
                :error [:rejected (keyword (str/lower-case (str (.code e#)))) (.getMessage e#)]))
       (catch KvConnectionException e#
         (assoc op#
                :type  (if idempotent?# :fail :info)
                :error [:connection (.getMessage e#)]))
       (catch KvException e#
         (assoc op# :type :fail :error [:too-large (.getMessage e#)])))))

(defn statuses
  "Each node's NodeStatus, or nil if it did not answer."
  [test]
  (with-open [^TandemKvClient c (admin test)]
    (into {}
          (for [node (:nodes test)]
            [node (try (.status c (endpoint node))
                       (catch RuntimeException e
                         (warn "no status from" node ":" (.getMessage e))
                         nil))]))))

(defn primaries
  "The nodes that say they lead, or, for engines that do not report a role,
  the node most others name as leader."
  [test]
  (let [st      (statuses test)
        leaders (for [[node ^NodeStatus s] st :when (and s (.isLeader s))] node)]
    (if (seq leaders)
      leaders
      (let [named (->> (vals st) (keep (fn [^NodeStatus s] (when s (.leader s)))) frequencies)]
        (when (seq named)
          [(key (apply max-key val named))])))))

(defn set-clock-offset!
  "Shifts a node's engine clock (the server must run with --fault-injection)."
  [test node offset-ms]
  (with-open [^TandemKvClient c (admin test)]
    (.setClockOffset c (endpoint node) (Duration/ofMillis offset-ms))))

(defn change-membership!
  "Asks the leader for a membership change (:add-learner, :promote, :remove)
  of node and waits until it is committed."
  [test change node]
  (with-open [^TandemKvClient c (admin test)]
    (.changeMembership c
                       (case change
                         :add-learner MembershipChange/ADD_LEARNER
                         :promote     MembershipChange/PROMOTE
                         :remove      MembershipChange/REMOVE)
                       (str node))))
