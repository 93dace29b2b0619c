#!/bin/bash
# tcp19 part 3: issue 22's 8 KiB points (2 and 3 members, ordered) for A (main 77c51415's benchmarks.jar) and B (this
# branch's transport-tcp classes ahead of it) next to JGroups SEQUENCER (legacy stack, vsync14/15's reference), J A B B A J;
# then a small-message sanity check of Raft through the peer harness: tandem-raft, 16 clients, 64 B, fsync off,
# main's servers (--repo /tmp/tcp19-base-src) against this branch's (--repo /work/wt-tcp19), A B B A.
# Ports 13000-14799.
set -u
D=$(cd "$(dirname "$0")" && pwd)
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
A=/tmp/tcp19-base/A.jar
B=/tmp/tcp19-B/transport:/tmp/tcp19-base/A.jar
i=0
mc() { # label classpath system extra...
  local label=$1 cp=$2 system=$3; shift 3
  local port=$((13000 + (i % 2) * 500)); i=$((i + 1))
  echo "== $label $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 60 $J -cp $cp io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 8192 --systems $system \
     --warmup 1.5 --measure 3 --base-port $port --thread-cpu true "$@" 2>>$D/run3.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
peer() { # label repo
  echo "== $1 $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 75 $J --enable-native-access=ALL-UNNAMED -Xmx512m -cp $A io.tandem.bench.peers.PeerBenchmark \
    --repo "$2" --systems tandem-raft --runs 1 --configs 64B-nofsync --clients 16 --warmup 10 --max-warmup 20 \
    --measure 8 --slowdown none --base-port 14000 --work-dir /var/tmp/tcp19-peerbench --out "$D/run3-peer/$1" > "$D/run3-peer/$1.log" 2>&1
  echo "$(grep -m1 'puts/s' "$D/run3-peer/$1.log")"
}
mkdir -p $D/run3-peer
echo "== start $(date +%T) load: $(uptime)"
mc J $A jgroups-sequencer --jgroups-stack legacy
mc A $A tandem-ordered
mc B $B tandem-ordered
mc B $B tandem-ordered
mc A $A tandem-ordered
mc J $A jgroups-sequencer --jgroups-stack legacy
peer pa1 /tmp/tcp19-base-src
peer pb1 /work/wt-tcp19
peer pb2 /work/wt-tcp19
peer pa2 /tmp/tcp19-base-src
echo "== end $(date +%T) load: $(uptime)"
