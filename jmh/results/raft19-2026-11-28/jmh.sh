#!/usr/bin/env bash
# raft19: LogAppendBenchmark (NO_FSYNC, 64 B records, batches of 1 and 64) from three builds, one fork each:
# base = main 77c51415 (pwrite per sync), w4 = mapped tail in 4 MiB windows (the tree of the peer-harness A/B r2-ab),
# w64 = mapped whole segment (this branch's head). Files in /var/tmp (ext4).
set -u
out="$1"; mkdir -p "$out"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
for v in base w4 w64; do
  echo "$v start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java -Dtandem.bench.dir=/var/tmp/raft19-jmh -jar /tmp/raft19-jmh-$v.jar 'LogAppendBenchmark' -p flush=NO_FSYNC -p recordBytes=64 \
    -f 1 -wi 1 -i 2 -w 1s -r 1s -jvmArgsAppend -Dtandem.bench.dir=/var/tmp/raft19-jmh -rf csv -rff "$out/$v.csv" > "$out/$v.log" 2>&1
  echo "$v end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
done
