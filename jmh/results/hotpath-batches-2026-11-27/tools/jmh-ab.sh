#!/bin/bash
# ExecutionStageBenchmark, base and new jars alternating (2 rounds each), 10k keys, 64 B values, with -prof gc.
set -u
out=$1; mkdir -p "$out"
JAVA=$(/work/wt-hotpath4/bin/find-jdk.sh)/bin/java
for r in 1 2; do
  for t in base new; do
    if [[ $r == 2 ]]; then [[ $t == base ]] && t=new || t=base; fi
    echo "=== $(date +%T) jmh r$r $t load $(cut -d' ' -f1-3 /proc/loadavg)"
    "$JAVA" -jar /tmp/hp4-$t/jmh/target/benchmarks.jar 'ExecutionStageBenchmark' -p keys=10000 -p valueSize=64 \
      -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc -rf csv -rff "$out/jmh-r$r-$t.csv" > "$out/jmh-r$r-$t.txt" 2>&1
    grep -E "^ExecutionStageBenchmark\.[a-zA-Z]+ |gc.alloc.rate.norm " "$out/jmh-r$r-$t.txt" | grep -v "·gc.alloc.rate " 
  done
done
echo "=== end $(date +%T)"
