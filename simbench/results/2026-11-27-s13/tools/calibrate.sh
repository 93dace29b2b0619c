#!/usr/bin/env bash
# perfsim8, session 13: the two calibrations the s13-quiet table lacks, by command, in one /work/tools/bench invocation:
# (1) handoff.latency (CostCalibration --handoff: park/unpark ping-pong wall time, 3 pairs) over the lead's s13-quiet table;
# (2) the KV path's per-put and per-turn CPU (KvPathCalibration, fsync on, 1/4/16/64 clients, ports 26100-26101) over that.
set -euo pipefail
cd /work/wt-perfsim8
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
out=simbench/results/2026-11-27-s13
jar=jmh/target/benchmarks.jar
opts=(--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -Dtandem.bench.dir=/var/tmp)
echo "start $(date -u +%T) $(cat /proc/loadavg)"
java "${opts[@]}" -cp $jar io.tandem.bench.sim.CostCalibration --handoff jmh/results/sim-costs-2026-11-27-s13-quiet.properties --repeat 3 \
  --out jmh/results/sim-costs-2026-11-27-s13-handoff.properties 2>&1 | grep -v '^WARNING'
echo "handoff done $(date -u +%T) $(cat /proc/loadavg)"
java "${opts[@]}" -cp $jar io.tandem.bench.sim.KvPathCalibration --base jmh/results/sim-costs-2026-11-27-s13-handoff.properties --port 26100 \
  --out jmh/results/sim-costs-2026-11-27-s13-kvpath-handoff.properties 2>&1 | grep -v '^WARNING' | grep -v ' INFO '
echo "end $(date -u +%T) $(cat /proc/loadavg)"
