(ns jepsen.tandem.db
  "Installs and runs a Tandem KV server on each node: a JDK 25, the server
  jar, and `java -jar tandem.jar server` under start-stop-daemon with a pid
  file. Kill, pause and resume go through that pid file only (never by process
  name), which also keeps the test safe when several nodes share a host."
  (:require [clojure.string :as str]
            [clojure.tools.logging :refer [info warn]]
            [jepsen [control :as c]
                    [core :as jepsen]
                    [db :as db]]
            [jepsen.control [net :as cn]
                            [util :as cu]]
            [jepsen.os.debian :as debian]
            [jepsen.tandem.client :as tc]))

(def dir "/opt/tandem")
(def jar (str dir "/tandem.jar"))
(def data-dir (str dir "/data"))
(def log-file-name "server.log")
(def log-file (str dir "/" log-file-name))
(def pid-file (str dir "/server.pid"))

(def cgroup
  "The cgroup the server runs in, so the slow-cpu and slow-disk faults can
  throttle it (cgroup v2; v1 hosts get one per controller)."
  "tandem")

(defn cgroup-v2?
  []
  (cu/exists? "/sys/fs/cgroup/cgroup.controllers"))

(defn cgroup-dirs
  "The cgroup directories the server joins: one on cgroup v2, cpu and blkio on v1."
  []
  (if (cgroup-v2?)
    [(str "/sys/fs/cgroup/" cgroup)]
    [(str "/sys/fs/cgroup/cpu/" cgroup) (str "/sys/fs/cgroup/blkio/" cgroup)]))

(defn setup-cgroups!
  []
  (c/su
    (when (cgroup-v2?)
      (c/exec :sh :-c "echo +cpu +io > /sys/fs/cgroup/cgroup.subtree_control"))
    (doseq [d (cgroup-dirs)]
      (c/exec :mkdir :-p d))))

(defn members
  "Every node's peer address, as --members wants it."
  [test]
  (->> (:nodes test)
       (map (fn [node] (str node "=" (cn/ip node) ":" tc/peer-port)))
       (str/join ",")))

(defn pid
  "The server's pid from its pid file, or nil."
  []
  (let [p (str/trim (c/exec :cat pid-file (c/lit "2>/dev/null") (c/lit "|| true")))]
    (when-not (str/blank? p) p)))

(defn start-server!
  [test node]
  (let [java (:java test)
        join (str/join " " (for [d (cgroup-dirs)] (str "echo $$ > " d "/cgroup.procs &&")))
        args (concat ["-Xmx1g" "-XX:+UseParallelGC" "--enable-native-access=ALL-UNNAMED"
                      "--sun-misc-unsafe-memory-access=allow"
                      "-jar" jar "server"
                      "--id" (name node)
                      "--members" (members test)
                      "--protocol" (:protocol test)
                      "--data-dir" data-dir
                      "--fault-injection"])]
    (c/su
      ;; The shell joins the server's cgroups, then execs the JVM in place, so the
      ;; pid start-stop-daemon records is the JVM's.
      (cu/start-daemon! {:logfile           log-file
                         :pidfile           pid-file
                         :chdir             dir
                         :match-executable? false}
                        "/bin/sh" "-c" (str join " exec \"$0\" \"$@\"") java args))))

(defrecord TandemDB []
  db/DB
  (setup! [this test node]
    (c/su
      (debian/install [:netcat-openbsd :iptables :iproute2 :util-linux :wget])
      (c/exec :mkdir :-p dir)
      (when-not (cu/exists? (:java test))
        (info "installing a JDK from" (:jdk-url test))
        (cu/install-archive! (:jdk-url test) (str dir "/jdk")))
      (c/upload (:server-jar test) jar))
    (setup-cgroups!)
    (db/start! this test node)
    (cu/await-tcp-port (cn/ip node) tc/client-port {:timeout 120000})
    (jepsen/synchronize test))

  (teardown! [this test node]
    (db/kill! this test node)
    (c/su (c/exec :rm :-rf data-dir log-file pid-file)))

  db/Kill
  (start! [this test node]
    (start-server! test node))

  (kill! [this test node]
    (c/su
      (when-let [p (pid)] (c/exec :kill :-CONT p (c/lit "|| true")))
      (cu/stop-daemon! pid-file)))

  db/Pause
  (pause! [this test node]
    (c/su (when-let [p (pid)] (c/exec :kill :-STOP p))))

  (resume! [this test node]
    (c/su (when-let [p (pid)] (c/exec :kill :-CONT p))))

  db/Primary
  (primaries [this test]
    (tc/primaries test))

  (setup-primary! [this test node])

  db/LogFiles
  (log-files [this test node]
    {log-file log-file-name}))

(defn db
  "The Tandem DB."
  [opts]
  (TandemDB.))
