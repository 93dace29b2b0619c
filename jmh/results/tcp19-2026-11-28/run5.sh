#!/bin/bash
# tcp19 part 5: which piece gives run4's Raft difference? This branch's servers with one piece switched back each:
# pc = no carry of partial frames, pr = reads of at most 64 KiB (one trial each; same command as run4). Ports 14000-14799.
set -u
D=$(cd "$(dirname "$0")" && pwd)
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
A=/tmp/tcp19-base/A.jar
peer() { # label opt
  echo "== $1 $2 $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 70 $J --enable-native-access=ALL-UNNAMED -Xmx512m -cp $A io.tandem.bench.peers.PeerBenchmark \
    --repo /work/wt-tcp19 --systems tandem-raft --runs 1 --configs 64B-nofsync --clients 16 --warmup 10 --max-warmup 15 \
    --measure 6 --slowdown none --base-port 14000 --work-dir /var/tmp/tcp19-peerbench --jvm-opt="$2" --out "$D/run5-peer/$1" > "$D/run5-peer/$1.log" 2>&1
  echo "$(grep -m1 'puts/s' "$D/run5-peer/$1.log")"
}
mkdir -p $D/run5-peer
echo "== start $(date +%T) load: $(uptime)"
peer pc -Dtandem.tcp.carryPartialFrames=false
peer pr -Dtandem.tcp.readMaxBytes=65536
echo "== end $(date +%T) load: $(uptime)"
