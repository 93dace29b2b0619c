#!/usr/bin/env bash
# alloc21: CommittedDeliveryBenchmark, main's core and protocols jars (base) against this branch's (new), rounds
# base new base new; -f 1 -wi 2 -i 3 -w 1s -r 1s; -prof gc (gc.alloc.rate.norm = bytes per committed command).
# The benchmark class is compiled with JMH's annotation processor into /tmp/alloc21-jmhc/classes (javac -proc:full,
# see jmh-compile.sh; the machine was too loaded for the jmh module's build to finish in time), the JMH runtime and
# dependencies come from main's benchmarks.jar, last on the class path.
set -u
d=$(cd "$(dirname "$0")" && pwd); mkdir -p "$d/jmh"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
gen=/tmp/alloc21-jmhc/classes
rest=/tmp/alloc21-base/jmh/target/benchmarks.jar
new=$gen:/work/wt-alloc21/core/target/tandem-core-0.1.0-SNAPSHOT.jar:/work/wt-alloc21/protocols/target/tandem-protocols-0.1.0-SNAPSHOT.jar:$rest
base=$gen:/tmp/alloc21-base/core/target/tandem-core-0.1.0-SNAPSHOT.jar:/tmp/alloc21-base/protocols/target/tandem-protocols-0.1.0-SNAPSHOT.jar:$rest
echo "start $(date -u +%T) $(cat /proc/loadavg)" >> "$d/jmh/load.txt"
for r in base1:$base new1:$new base2:$base new2:$new; do
  label=${r%%:*}; cp=${r#*:}
  $java -cp "$cp" org.openjdk.jmh.Main CommittedDeliveryBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s -prof gc -rf json -rff "$d/jmh/$label.json" > "$d/jmh/$label.txt" 2>&1
  echo "$label end $(date -u +%T) $(cat /proc/loadavg)" >> "$d/jmh/load.txt"
done
