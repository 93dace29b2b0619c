#!/usr/bin/env bash
# alloc21: CommittedDeliveryBenchmark against main's core and protocols (base jars first on the class path) and this
# branch's, rounds base new base new; -f 1 -wi 2 -i 3 -w 1s -r 1s; -prof gc (gc.alloc.rate.norm = bytes per command).
set -u
d=$(cd "$(dirname "$0")" && pwd); mkdir -p "$d/jmh"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
new=/work/wt-alloc21/jmh/target/benchmarks.jar
base=/tmp/alloc21-base/core/target/tandem-core-0.1.0-SNAPSHOT.jar:/tmp/alloc21-base/protocols/target/tandem-protocols-0.1.0-SNAPSHOT.jar:$new
echo "start $(date -u +%T) $(cat /proc/loadavg)" >> "$d/jmh/load.txt"
for r in base1:$base new1:$new base2:$base new2:$new; do
  label=${r%%:*}; cp=${r#*:}
  $java -cp "$cp" org.openjdk.jmh.Main CommittedDeliveryBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s -prof gc -rf json -rff "$d/jmh/$label.json" > "$d/jmh/$label.txt" 2>&1
  echo "$label end $(date -u +%T) $(cat /proc/loadavg)" >> "$d/jmh/load.txt"
done
