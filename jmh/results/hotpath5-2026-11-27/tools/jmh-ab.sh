#!/bin/bash
# JMH base/new (rounds base,new then new,base): the execution stage with sessions (-prof gc) and the storage hand-off.
set -u
out=$1; mkdir -p "$out"
[[ -f /tmp/hp5-src/jmh/target/benchmarks.jar && -f /tmp/hp5-new/jmh-READY ]] || { echo "new jmh jar not ready"; exit 0; }
JAVA=$(/work/wt-hotpath5/bin/find-jdk.sh)/bin/java
jar() { [[ $1 == base ]] && echo /tmp/hp5-base/jmh/target/benchmarks.jar || echo /tmp/hp5-src/jmh/target/benchmarks.jar; }
for r in 1 2; do
  for t in base new; do
    if [[ $r == 2 ]]; then [[ $t == base ]] && t=new || t=base; fi
    echo "=== $(date +%T) jmh r$r $t load $(cut -d' ' -f1-3 /proc/loadavg)"
    "$JAVA" -jar $(jar $t) 'ExecutionStageBenchmark.executionStage' -p keys=10000 -p valueSize=64 \
      -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc -rf csv -rff "$out/exec-r$r-$t.csv" > "$out/exec-r$r-$t.txt" 2>&1
    "$JAVA" -jar $(jar $t) 'NodeStorageAppendBenchmark.appendBatchAndAwaitDurable$' -p recordBytes=64 -p batchSize=1,64 -p flush=NO_FSYNC \
      -f 1 -wi 2 -i 4 -w 1s -r 1s -rf csv -rff "$out/storage-r$r-$t.csv" > "$out/storage-r$r-$t.txt" 2>&1
    grep -E "^(ExecutionStage|NodeStorage)Benchmark\.[a-zA-Z]+ |gc.alloc.rate.norm " "$out/exec-r$r-$t.txt" "$out/storage-r$r-$t.txt"
  done
done
"$JAVA" -jar $(jar new) 'NodeStorageAppendBenchmark.appendBatchStreaming' -p recordBytes=64 -p batchSize=1,64 -p flush=NO_FSYNC \
  -f 1 -wi 2 -i 4 -w 1s -r 1s -rf csv -rff "$out/streaming-new.csv" > "$out/streaming-new.txt" 2>&1
grep -E "^NodeStorageAppendBenchmark" "$out/streaming-new.txt"
echo "=== end $(date +%T)"
