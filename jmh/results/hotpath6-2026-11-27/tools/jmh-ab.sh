#!/usr/bin/env bash
# PendingRequestsBenchmark on main's core (its jar first on the class path) and on this branch's, -prof gc.
# Usage: jmh-ab.sh OUTDIR   (through /work/tools/bench)
set -u
out="$1"; tree=/work/wt-hotpath6; base=/tmp/hp6-base
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"; cd "$tree"
echo "start $(date -u +%T) $(cat /proc/loadavg)" > "$out/load.txt"
for t in base new base new; do
  cp=jmh/target/benchmarks.jar
  [ $t = base ] && cp="$base/core/target/tandem-core-0.1.0-SNAPSHOT.jar:$cp"
  $java -cp "$cp" org.openjdk.jmh.Main PendingRequestsBenchmark -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc -rf csv -rff "$out/$t-$(date +%s).csv" > "$out/$t-$(date +%s).txt" 2>&1
done
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
