#!/bin/bash
# tcp19 part 2: the transport's no-protocol numbers, A (main 77c51415's benchmarks.jar) against B (this branch's
# transport-tcp classes ahead of it), interleaved A B ... B ... A in one invocation, plus each piece of B switched
# back once (Bc: no carry of partial frames; Bw: Netty's default 64 KiB write watermark; Br: reads up to 64 KiB as
# before) and B on epoll (Be). The benchmark class itself (LargeMessageBenchmark with --io and the CPU line) is this
# branch's in every run. Ports 12000-12999.
set -u
D=$(cd "$(dirname "$0")" && pwd)
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
A=/tmp/tcp19-bench:/tmp/tcp19-base/A.jar
B=/tmp/tcp19-bench:/tmp/tcp19-B/transport:/tmp/tcp19-base/A.jar
i=0
run() { # label classpath [jvm opts...] -- [bench opts...]
  local label=$1 cp=$2; shift 2
  local jvm=() ; while [ $# -gt 0 ] && [ "$1" != "--" ]; do jvm+=("$1"); shift; done; [ $# -gt 0 ] && shift
  local port=$((12000 + (i % 2) * 400)); i=$((i + 1))
  echo "== $label $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 60 $J -Xmx4g "${jvm[@]}" -cp $cp io.tandem.bench.vsync.LargeMessageBenchmark --sizes 2,3 --payloads 8192,262144 --block 262144 \
     --tandem false --warmup 0.8 --measure 1.5 --base-port $port "$@" 2>>$D/run2.err | grep -E '^1,|^# cpu'
}
echo "== start $(date +%T) load: $(uptime)"
run A  $A --
run B  $B --
run Bc $B -Dtandem.tcp.carryPartialFrames=false --
run Bw $B -Dtandem.tcp.writeHighWaterBytes=65536 --
run Br $B -Dtandem.tcp.readMaxBytes=65536 --
run B  $B --
run Be $B -- --io epoll
run A  $A --
echo "== end $(date +%T) load: $(uptime)"
