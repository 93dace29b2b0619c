#!/usr/bin/env bash
# compart13, through bench (wall time matters): every timer of the 90 %-read step r-p2-grid24-r24-batchers timed in the
# simulator (CostCalibration --timers, timer '*': every timer with >= 50 samples in the recorded run), the engine options
# run-reads.sh uses (none: the default batched config), 4,096 clients, --read-share 0.9, written onto the table given.
# Usage: bench run-bench.sh BASE_TABLE OUT_TABLE   (one pass per bench run; pass 2 takes pass 1's output as its base)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp jmh/target/benchmarks.jar io.tandem.bench.sim.CostCalibration --timers "$1" --deployment simbench/compartments/r-p2-grid24-r24-batchers.conf \
  --nodes 36 --clients 4096 --read-share 0.9 --timer '*' --out "$2"
echo "end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
