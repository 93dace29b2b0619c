#!/usr/bin/env bash
# hotpath11: JMH A/B of the execution path, rounds base new new base, inside one /work/tools/bench call.
# base = main 52b6897's benchmarks.jar (copied to /tmp/hp11-base before any change), new = this branch's.
# Usage: jmh.sh OUTDIR
set -u
out="$1"; mkdir -p "$out"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
base=/tmp/hp11-base/jmh/benchmarks.jar
new=/work/wt-hotpath11/jmh/target/benchmarks.jar
common=(-p valueSize=64 -p keys=10000 -f 1 -wi 2 -i 3 -w 1s -r 1s -prof gc)
i=0
for tree in base new new base; do
  i=$((i+1))
  echo "r$i $tree start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  if [[ $tree == base ]]; then
    $java -jar $base 'ExecutionStageBenchmark\.(executionStage|stateMachineApplyBatched)$' "${common[@]}" -rf csv -rff "$out/r$i-base.csv" > "$out/r$i-base.log" 2>&1
  else
    $java -jar $new 'ExecutionStageBenchmark\.(executionStage|stateMachineApplyBatched|stateMachineApplyBatchedDeferred)$' "${common[@]}" \
      -p publishEvery=1 -rf csv -rff "$out/r$i-new.csv" > "$out/r$i-new.log" 2>&1
    # the tree with (almost) no leaf copy per put: published every 128 batches of 32
    $java -jar $new 'ExecutionStageBenchmark\.stateMachineApplyBatched$' "${common[@]}" \
      -p publishEvery=128 -rf csv -rff "$out/r$i-new-pub128.csv" > "$out/r$i-new-pub128.log" 2>&1
  fi
done
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
