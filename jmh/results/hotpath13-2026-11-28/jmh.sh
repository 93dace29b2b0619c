#!/usr/bin/env bash
# hotpath13 JMH, one bench call: the session index (PendingRequestsBenchmark, base core jar first on the class path vs
# this branch; rounds base new new base) and the reply path (ReplyPathBenchmark: futureStages = main's steps,
# replyObject = this branch's; two rounds). Usage: jmh.sh OUTDIR
set -u
out="$1"; mkdir -p "$out"
here=/work/wt-hotpath13
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
jar=$here/jmh/target/benchmarks.jar
basecore=/tmp/hp13-base/core/target/tandem-core-0.1.0-SNAPSHOT.jar
opts=(-f 1 -wi 2 -i 3 -w 1s -r 1s -prof gc)
echo "start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
n=0
for tree in base new new base; do
  n=$((n+1))
  case $tree in base) cp="$basecore:$jar" ;; new) cp="$jar" ;; esac
  $java -cp "$cp" org.openjdk.jmh.Main 'io.tandem.runtime.PendingRequestsBenchmark' -p inFlight=64 "${opts[@]}" \
    -rf csv -rff "$out/pending-r$n-$tree.csv" > "$out/pending-r$n-$tree.txt" 2>&1
  echo "pending r$n $tree $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
done
for n in 1 2; do
  $java -cp "$jar" org.openjdk.jmh.Main 'io.tandem.kv.server.ReplyPathBenchmark' "${opts[@]}" \
    -rf csv -rff "$out/reply-r$n.csv" > "$out/reply-r$n.txt" 2>&1
  echo "reply r$n $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
done
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
