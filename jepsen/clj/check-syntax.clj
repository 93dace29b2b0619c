;; Reads every form of every .clj file given on the command line (or under the
;; directories given) with the Clojure reader, without evaluating anything
;; (*read-eval* false), and exits 1 naming the file and line of the first
;; syntax error in each file. It cannot compile the namespaces (that needs
;; Jepsen from Clojars); `lein check` does that where Clojars is reachable.
;;
;;   clojure check-syntax.clj src test project.clj
(ns check-syntax
  (:require [clojure.java.io :as io]))

(defn clj-files
  [paths]
  (->> paths
       (map io/file)
       (mapcat (fn [f] (if (.isDirectory f) (file-seq f) [f])))
       (filter #(.isFile %))
       (filter #(re-find #"\.(clj|cljc|edn)$" (.getName %)))
       (sort-by str)))

(defn read-all
  "Reads every form of file; returns the number of forms, or throws."
  [file]
  (with-open [r (clojure.lang.LineNumberingPushbackReader. (io/reader file))]
    (binding [*read-eval* false
              *ns*        (create-ns 'check-syntax.scratch)]
      (loop [n 0]
        (let [form (read {:eof ::eof, :read-cond :allow} r)]
          (if (= ::eof form)
            n
            (recur (inc n))))))))

(let [files  (clj-files *command-line-args*)
      errors (atom 0)]
  (when (empty? files)
    (println "check-syntax: no .clj files under" (vec *command-line-args*))
    (System/exit 2))
  (doseq [f files]
    (try
      (println (format "%-50s %4d forms" (str f) (read-all f)))
      (catch Exception e
        (swap! errors inc)
        (println (str f ": syntax error: " (.getMessage (or (.getCause e) e)))))))
  (println (str (count files) " files read, " @errors " with syntax errors"))
  (System/exit (if (zero? @errors) 0 1)))
