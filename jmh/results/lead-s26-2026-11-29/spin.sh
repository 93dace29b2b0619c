#!/usr/bin/env bash
# Lead, session 26: a time-bounded spin before a non-polling loop or the execution thread parks
# (branch spin26, -Dtandem.spinNanos=N on the replicas; 0 = main's behaviour). One bench call per trial.
# Usage: spin.sh OUTDIR ENTRY...   ENTRY = label:clients:spinNanos
set -u
out="$1"; shift
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
for e in "$@"; do
  IFS=: read -r label clients spin <<<"$e"
  /work/tools/bench bash -c "echo \"$label start \$(date -u +%T) load \$(cut -d' ' -f1-3 /proc/loadavg)\" >> '$out/load.txt'
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /work/wt-spin26/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo /work/wt-spin26 --systems tandem-raft --runs 1 --configs 64B-nofsync --clients $clients --warmup 10 --max-warmup 30 \
    --measure 8 --slowdown none --jvm-opt=-Dtandem.spinNanos=$spin --base-port 20000 --work-dir /var/tmp/lead26-peerbench --out '$out/$label' --profile-window '$out/$label/profile' > '$out/$label.log' 2>&1
  echo \"$label end \$(date -u +%T) load \$(cut -d' ' -f1-3 /proc/loadavg) :: \$(grep -m1 'puts/s' '$out/$label.log') \$(grep '^| tandem' '$out/$label.log')\" >> '$out/load.txt'" 2>>"$out/bench.log"
done
