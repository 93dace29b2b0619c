#!/usr/bin/env bash
# hotpath12: JMH A/B of a replica's per-put apply path, rounds base new new base, inside one /work/tools/bench call.
# base = main 8f2e954's benchmarks.jar (built in /tmp/hp12-base from `git archive 8f2e954`, plus this branch's
# FollowerApplyBenchmark with the delivery main does: EntryPayload.toCommitted(decode(entry))), new = this branch's.
# Usage: jmh.sh OUTDIR
set -u
out="$1"; mkdir -p "$out"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
base=/tmp/hp12-base/jmh/target/benchmarks.jar
new=/work/wt-hotpath12/jmh/target/benchmarks.jar
common=(-f 1 -wi 2 -i 3 -w 1s -r 1s -prof gc)
i=0
for tree in base new new base; do
  i=$((i+1))
  echo "r$i $tree start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  if [[ $tree == base ]]; then
    $java -jar $base 'FollowerApplyBenchmark\.followerApply$' "${common[@]}" -rf csv -rff "$out/r$i-base-follower.csv" > "$out/r$i-base-follower.log" 2>&1
  else
    # slice=false,publishEveryBatch=true: only the session table differs from base; +slice; +tree published on demand
    $java -jar $new 'FollowerApplyBenchmark\.followerApply$' "${common[@]}" -p slice=false,true -p publishEveryBatch=true,false \
      -rf csv -rff "$out/r$i-new-follower.csv" > "$out/r$i-new-follower.log" 2>&1
  fi
  # the machine alone, batches of 32 puts ended with endBatch (base: published at each; new: on demand)
  jar=$base; [[ $tree == new ]] && jar=$new
  $java -jar $jar 'ExecutionStageBenchmark\.stateMachineApplyBatchedDeferred$' "${common[@]}" -p valueSize=64 -p keys=10000 \
    -rf csv -rff "$out/r$i-$tree-machine.csv" > "$out/r$i-$tree-machine.log" 2>&1
done
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
