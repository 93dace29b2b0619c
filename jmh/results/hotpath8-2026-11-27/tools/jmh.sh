#!/usr/bin/env bash
# hotpath8's JMH A/B (both variants in one invocation): AdmissionBenchmark, 64 B values, -prof gc. Usage: jmh.sh OUTDIR
set -u
out="$1"; mkdir -p "$out"; cd /work/wt-hotpath8
echo "start $(date -u +%T) $(cat /proc/loadavg)" > "$out/load.txt"
/usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar jmh/target/benchmarks.jar 'io.tandem.jmh.kv.AdmissionBenchmark' -p valueSize=64 \
  -f 1 -wi 2 -i 3 -w 1s -r 1s -prof gc -rf csv -rff "$out/admission.csv" > "$out/admission.log" 2>&1
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
