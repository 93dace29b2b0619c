#!/bin/bash
# One tandem-raft trial per tree with JFR (settings=profile) on every JVM, 10 s inside the measured window; 64 clients, fsync off.
JAVA=$(/work/wt-hotpath5/bin/find-jdk.sh)/bin/java
for t in base new; do
  out=/tmp/hp5/jfr-$t; mkdir -p $out/jfr
  echo "=== $(date +%T) jfr $t load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$JAVA" --enable-native-access=ALL-UNNAMED -Xmx512m -cp /tmp/hp5-base/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo /tmp/hp5-$t --systems tandem-raft --runs 1 --configs 64B-nofsync --clients 64 --warmup 15 --measure 10 --slowdown none \
    --base-port 25000 --work-dir /var/tmp/hp5-peerbench --out $out \
    "--jvm-opt=-XX:StartFlightRecording=delay=18s,duration=10s,settings=profile,filename=$out/jfr/rec-%p.jfr" 2>&1 | grep -E "puts/s|\[[0-9]+/"
done
echo "=== end $(date +%T)"
