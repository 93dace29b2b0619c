#!/bin/bash
# tcp19 part 4: a small-message sanity check of Raft through the peer harness: tandem-raft, 16 clients, 64 B, fsync off,
# main's servers (--repo /tmp/tcp19-base-src, main 77c51415 built there) against this branch's (--repo /work/wt-tcp19),
# A B B A, every trial through main's harness jar. Ports 14000-14799.
set -u
D=$(cd "$(dirname "$0")" && pwd)
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
A=/tmp/tcp19-base/A.jar
peer() { # label repo
  echo "== $1 $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 70 $J --enable-native-access=ALL-UNNAMED -Xmx512m -cp $A io.tandem.bench.peers.PeerBenchmark \
    --repo "$2" --systems tandem-raft --runs 1 --configs 64B-nofsync --clients 16 --warmup 10 --max-warmup 15 \
    --measure 6 --slowdown none --base-port 14000 --work-dir /var/tmp/tcp19-peerbench --out "$D/run4-peer/$1" > "$D/run4-peer/$1.log" 2>&1
  echo "$(grep -m1 'puts/s' "$D/run4-peer/$1.log")"
}
mkdir -p $D/run4-peer
echo "== start $(date +%T) load: $(uptime)"
peer pa1 /tmp/tcp19-base-src
peer pb1 /work/wt-tcp19
peer pb2 /work/wt-tcp19
peer pa2 /tmp/tcp19-base-src
echo "== end $(date +%T) load: $(uptime)"
