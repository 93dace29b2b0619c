#!/usr/bin/env bash
# compart10 (issue 21, session 14): the measurements behind the leader's per-command cost with proxy leaders, in one
# bench run (through /work/tools/bench: wall clock and CPU time matter). Ports 22000-22001 (the transport probe).
#   1. the real TCP transport's CPU per 64-byte message by burst size (HotPathProbe transport)
#   2. the codec of the messages a command crosses with proxies: Propose, ProxyAccept, Chosen (and Accept), hand-written
#      against Kryo's reflective record serializer (JMH CodecBenchmark, 1 entry of 64 payload bytes)
#   3. the engine handlers' wall time per message type in a3-p10-grid24-r4 unbatched (HotPathProbe handlers)
# Usage: run-bench.sh transport-codec | handlers   (two bench runs, each under 5 minutes)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
J=(/usr/lib/jvm/temurin-25-jdk-amd64/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx2g)
echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$1" = transport-codec ]; then
"${J[@]}" -cp jmh/target/benchmarks.jar io.tandem.bench.sim.HotPathProbe transport 22000 100000
echo "transport done $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
"${J[@]}" -jar jmh/target/benchmarks.jar 'io.tandem.jmh.codec.CodecBenchmark' -p message=propose,proxy-accept,chosen,accept -p entries=1 -p payloadBytes=64 \
  -p impl=handwritten,reflective -f 1 -wi 2 -w 1s -i 3 -r 1s -rf csv -rff jmh/results/compart10-2026-11-27/codec.csv 2>&1 | grep -E "^Benchmark|^CodecBenchmark|Error|rror:"
else
timeout 200 "${J[@]}" -cp jmh/target/benchmarks.jar io.tandem.bench.sim.HotPathProbe handlers simbench/compartments/a3-p10-grid24-r4.conf 24 512 \
  simbench/compartments/whatif-medians-hashkv.properties max-batch-slots=1 max-inflight-messages=1024
fi
echo "end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
