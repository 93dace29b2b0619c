#!/usr/bin/env bash
# hotpath15: third JMH call, the key as a range of the entry (commit after the heads): FollowerApplyBenchmark, rounds
# heads new2 new2 heads. heads = /tmp/hp15-new.jar (the key heads only, as in jmh.sh/jmh2.sh), new2 = /tmp/hp15-new2.jar
# (heads + the key range). base (main) is in jmh.sh/jmh2.sh. Usage: jmh3.sh OUTDIR
set -u
out="$1"; mkdir -p "$out"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
common=(-f 1 -wi 2 -i 3 -w 1s -r 1s -prof gc)
echo "start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
i=0
for tree in heads new2 new2 heads; do
  i=$((i+1)); jar=/tmp/hp15-new.jar; [[ $tree == new2 ]] && jar=/tmp/hp15-new2.jar
  echo "r$i $tree start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java -jar $jar 'FollowerApplyBenchmark\.followerApply$' "${common[@]}" -rf csv -rff "$out/follower-r$i-$tree.csv" > "$out/follower-r$i-$tree.log" 2>&1
done
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
