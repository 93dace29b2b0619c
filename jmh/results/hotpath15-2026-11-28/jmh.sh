#!/usr/bin/env bash
# hotpath15: JMH A/B of the B+-tree's key search and put and of a replica's apply path, inside one /work/tools/bench call.
# base = main 4c321679 + this part's TreeSearchBenchmark (jar built before any change, /tmp/hp15-base/benchmarks-base.jar),
# new = this branch's jmh/target/benchmarks.jar (copied to /tmp/hp15-new.jar before the call).
# Per key kind base then new; FollowerApplyBenchmark base new new base. Usage: jmh.sh OUTDIR
set -u
out="$1"; mkdir -p "$out"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
base=/tmp/hp15-base/benchmarks-base.jar
new=/tmp/hp15-new.jar
common=(-f 1 -wi 2 -i 3 -w 1s -r 1s -prof gc)
echo "start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
for kind in harness random16 path; do
  for tree in base new; do
    jar=$base; [[ $tree == new ]] && jar=$new
    echo "tree $kind $tree start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
    $java -jar $jar 'TreeSearchBenchmark\.(get|putBatched)$' "${common[@]}" -p keyKind=$kind -p keys=10000,1000000 \
      -rf csv -rff "$out/tree-$kind-$tree.csv" > "$out/tree-$kind-$tree.log" 2>&1
  done
done
i=0
for tree in base new new base; do
  i=$((i+1)); jar=$base; [[ $tree == new ]] && jar=$new
  echo "follower r$i $tree start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java -jar $jar 'FollowerApplyBenchmark\.followerApply$' "${common[@]}" -rf csv -rff "$out/follower-r$i-$tree.csv" > "$out/follower-r$i-$tree.log" 2>&1
done
for tree in base new; do
  jar=$base; [[ $tree == new ]] && jar=$new
  echo "insertRemove $tree start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java -jar $jar 'TreeSearchBenchmark\.insertRemoveBatched$' "${common[@]}" -p keyKind=harness,path -p keys=10000 \
    -rf csv -rff "$out/insrem-$tree.csv" > "$out/insrem-$tree.log" 2>&1
done
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
