#!/usr/bin/env bash
# hotpath15: second JMH call, longer runs of the two numbers that matter most (a replica's apply path; a lookup in a
# large tree with the harness's keys), rounds base new new base. Jars as in jmh.sh. Usage: jmh2.sh OUTDIR
set -u
out="$1"; mkdir -p "$out"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
base=/tmp/hp15-base/benchmarks-base.jar
new=/tmp/hp15-new.jar
common=(-f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc)
echo "start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
i=0
for tree in base new new base; do
  i=$((i+1)); jar=$base; [[ $tree == new ]] && jar=$new
  echo "r$i $tree start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java -jar $jar 'FollowerApplyBenchmark\.followerApply$' "${common[@]}" -rf csv -rff "$out/follower-r$i-$tree.csv" > "$out/follower-r$i-$tree.log" 2>&1
  $java -jar $jar 'TreeSearchBenchmark\.get$' "${common[@]}" -p keyKind=harness -p keys=1000000 -rf csv -rff "$out/get1m-r$i-$tree.csv" > "$out/get1m-r$i-$tree.log" 2>&1
done
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
