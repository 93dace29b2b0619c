#!/usr/bin/env bash
# Lead s25, issue 22: the protocol-free TCP ceiling (stream.sh) and JGroups SEQUENCER at the 8 KiB points in one call
# (main's benchmarks jar from /tmp/lead25-base), twice in alternating order.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
d=$(cd "$(dirname "$0")" && pwd); cd "$d"
jg() { java -cp /tmp/lead25-base/jmh/target/benchmarks.jar io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3,4,5 --payloads 8192 \
  --systems jgroups-sequencer --warmup 2 --measure 4 --base-port 20600 2>/dev/null | grep -E '^jgroups'; }
echo "== $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"; ./stream.sh; jg
echo "== $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"; jg; ./stream.sh
echo "== end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
