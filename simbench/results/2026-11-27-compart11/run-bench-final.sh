#!/usr/bin/env bash
# compart11 (re-measure on the final engine: hold and Decided at choice), through bench (wall time matters): the proxy leader's end-of-drain announcement timer
# (ProxyLeader$AnnounceTimer) timed in the simulator on a4-p10-grid24-r4-b3-u2 unbatched, written onto compart10's
# what-if table (whatif-medians-hashkv-proposeloop.properties). Two passes: the first runs with the timer charged
# loop.timer.ns (72 us, so the proxies' drains are longer than they will be), the second on the first's output, so
# the drains it times are those of the model with the measured cost. Usage: bench run-bench.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
out=simbench/results/2026-11-27-compart11
base=simbench/compartments/whatif-medians-hashkv-proposeloop.properties
cal() {
  java -cp jmh/target/benchmarks.jar io.tandem.bench.sim.CostCalibration --timers "$1" --deployment simbench/compartments/a4-p10-grid24-r4-b3-u2.conf \
    --nodes 29 --clients 2048 --timer 'ProxyLeader$AnnounceTimer' --engine-option max-batch-slots=1 --engine-option max-inflight-messages=1024 --out "$2"
}
echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
cal "$base" "$out/timers-final-pass1.properties"
echo "pass 1 done $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
cal "$out/timers-final-pass1.properties" "$out/timers-final-pass2.properties"
echo "end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
