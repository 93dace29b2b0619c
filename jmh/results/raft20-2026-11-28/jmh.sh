#!/usr/bin/env bash
# raft20: FollowerAppendBenchmark against main's engine and timers (base jars first on the class path) and this branch's.
# Rounds base new; -f 1 -wi 1 -i 2 -w 1s -r 1s; -prof gc. (jmh-first/: the same before the virtual clock: base ran into its own stale timer entries, see docs.)
set -u
d=$(cd "$(dirname "$0")" && pwd); mkdir -p "$d/jmh"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
new=/work/wt-raft20/jmh/target/benchmarks.jar
base=/tmp/raft20-base/core/target/tandem-core-0.1.0-SNAPSHOT.jar:/tmp/raft20-base/protocols/target/tandem-protocols-0.1.0-SNAPSHOT.jar:$new
echo "start $(date -u +%T) $(cat /proc/loadavg)" >> "$d/jmh/load.txt"
for r in base1:$base new1:$new; do
  label=${r%%:*}; cp=${r#*:}
  $java -cp "$cp" org.openjdk.jmh.Main FollowerAppendBenchmark -f 1 -wi 1 -i 2 -w 1s -r 1s -prof gc -rf json -rff "$d/jmh/$label.json" > "$d/jmh/$label.txt" 2>&1
  echo "$label end $(date -u +%T) $(cat /proc/loadavg)" >> "$d/jmh/load.txt"
done
