#!/usr/bin/env bash
# compart13, through bench (wall time matters): every timer of the 90 %-read step r-p2-grid24-r24-batchers timed in the
# simulator (CostCalibration --timers, timer '*': every timer with >= 50 samples in the recorded runs), the engine
# options run-reads.sh uses (none: the default batched config), 4,096 clients, --read-share 0.9, 3 warm-up runs and 6
# recorded ones. Two passes: the first on w1a (every timer but the announcement charged loop.timer.ns = 72 us), the
# second on the first's output, so the runs it times are those of the model with the measured costs.
# Usage: bench run-bench.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
out=simbench/results/2026-11-28-compart13
cal() {
  java -cp jmh/target/benchmarks.jar io.tandem.bench.sim.CostCalibration --timers "$1" --deployment simbench/compartments/r-p2-grid24-r24-batchers.conf \
    --nodes 36 --clients 4096 --read-share 0.9 --record-rounds 6 --timer '*' --out "$2"
}
echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
cal simbench/compartments/whatif-medians-hashkv-proposeloop-announce.properties "$out/timers-reads-pass1.properties"
echo "pass 1 done $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
cal "$out/timers-reads-pass1.properties" "$out/timers-reads-pass2.properties"
echo "end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
