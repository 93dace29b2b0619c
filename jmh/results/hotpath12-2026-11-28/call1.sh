#!/usr/bin/env bash
# hotpath12 bench call 1: the follower JMH again (random client ids), rounds base new new base, then tandem-raft at 16
# clients, A B B A (base = main 8f2e954, new = this branch). Usage: call1.sh (from this folder)
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$here/jmh2; mkdir -p "$out"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
common=(-f 1 -wi 2 -i 3 -w 1s -r 1s -prof gc)
i=0
for tree in base new new base; do
  i=$((i+1))
  echo "r$i $tree start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  if [[ $tree == base ]]; then
    $java -jar /tmp/hp12-base/jmh/target/benchmarks.jar 'FollowerApplyBenchmark\.followerApply$' "${common[@]}" -rf csv -rff "$out/r$i-base.csv" > "$out/r$i-base.log" 2>&1
  else
    for combo in "false true" "true true" "true false"; do
      set -- $combo
      $java -jar /work/wt-hotpath12/jmh/target/benchmarks.jar 'FollowerApplyBenchmark\.followerApply$' "${common[@]}" -p slice=$1 -p publishEveryBatch=$2 \
        -rf csv -rff "$out/r$i-new-slice$1-pub$2.csv" > "$out/r$i-new-slice$1-pub$2.log" 2>&1
    done
  fi
done
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
"$here/round.sh" "$here/ab16" 170 a1:tandem-raft:16:base b1:tandem-raft:16:new b2:tandem-raft:16:new a2:tandem-raft:16:base
