#!/bin/bash
# tcp19 part 3: first the transport's no-protocol numbers, final code, A B B A (LargeMessageBenchmark as in run2b);
# then issue 22's 8 KiB points (2 and 3 members, ordered) for A (main 77c51415's benchmarks.jar) and B (this
# branch's transport-tcp classes ahead of it) next to JGroups SEQUENCER (legacy stack, vsync14/15's reference), J A B B A J;
# the Raft small-message check is run4.sh. Ports 12000-13999.
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
raw() { # label classpath
  echo "== $1 $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 60 $J -Xmx4g -cp /tmp/tcp19-bench:$2 io.tandem.bench.vsync.LargeMessageBenchmark --sizes 2,3 --payloads 8192,262144 --block 262144 \
     --tandem false --first-warmup 3 --warmup 0.8 --measure 1.5 --base-port $((12000 + (i % 2) * 400)) 2>>$D/run3.err | grep -E "^1,|^# cpu"
  i=$((i + 1))
}
echo "== start $(date +%T) load: $(uptime)"
raw A $A
raw B $B
raw B $B
raw A $A
mc J $A jgroups-sequencer --jgroups-stack legacy
mc A $A tandem-ordered
mc B $B tandem-ordered
mc B $B tandem-ordered
mc A $A tandem-ordered
mc J $A jgroups-sequencer --jgroups-stack legacy
echo "== end $(date +%T) load: $(uptime)"
