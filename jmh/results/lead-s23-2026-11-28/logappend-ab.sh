#!/usr/bin/env bash
# fsync22 (batch headers) vs main: LogAppendBenchmark.appendBatch, 64 B records, batches of 1 and 64, fsync on/off.
# Interleaved A B B A; each call is one JMH fork per parameter set (2 x 1 s warm-up, 4 x 1 s measured).
set -euo pipefail
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=$(cd "$(dirname "$0")" && pwd)/logappend
mkdir -p "$out"
base=/tmp/lead23-base/jmh/target/benchmarks.jar
new=/work/wt-merge23/jmh/target/benchmarks.jar
i=0
for side in main new new main; do
  i=$((i+1)); jar=$base; [[ $side == new ]] && jar=$new
  echo "trial $i $side start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  java -jar "$jar" 'LogAppendBenchmark.appendBatch$' -p recordBytes=64 -p batchSize=1,64 -p flush=FSYNC,NO_FSYNC \
    -rf csv -rff "$out/$i-$side.csv" > "$out/$i-$side.txt" 2>&1
  echo "trial $i $side end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
done
