#!/usr/bin/env bash
# Calibrates the performance simulator's cost table on this machine (io.tandem.bench.sim.CostCalibration;
# see protocols/README.md, "Performance simulator").
#   jmh/run-simcalibrate.sh                 full: writes jmh/results/sim-costs-<date>.properties (about 3-5 minutes): handlers,
#                                           codec, transport, loopback stalls and window, wake-up CPU, hand-off latency, disk
#   jmh/run-simcalibrate.sh --kvpath        the same, then KvPathCalibration over it (the KV server's and client's CPU per put and
#                                           per thread turn, the storage thread's CPU per sync; fsync on, 1/4/16/64 clients, ~40 s;
#                                           TANDEM_KVPATH_PORT=P uses ports P and P+1). Not by default: docs/perfsim.md §5
#   jmh/run-simcalibrate.sh --quick         shorter measurements (about 1-2 minutes)
#   jmh/run-simcalibrate.sh --install       also copies the table to core's classpath resource, the default of ./tandem simbench
#   jmh/run-simcalibrate.sh --out FILE
#   jmh/run-simcalibrate.sh --latencies BASE [--repeat 3] --out FILE   only disk.fsync and net.oneway re-measured over BASE's
#                                           CPU costs, N repetitions pooled (run it through /work/tools/bench: wall clock)
# Builds jmh/target/benchmarks.jar when a source is newer (TANDEM_SKIP_BUILD=1 skips). The disk measurement writes
# under $TANDEM_BENCH_DIR (default /var/tmp), which should be the storage the real cluster uses.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAVA_HOME="$("$root/bin/find-jdk.sh")"
export JAVA_HOME
bench="$root/jmh/target/benchmarks.jar"
install=0
kvpath=0
out="$root/jmh/results/sim-costs-$(date -u +%Y-%m-%d).properties"
args=()
while (($#)); do
  case "$1" in
    --install) install=1 ;;
    --kvpath) kvpath=1 ;;
    --out) out="$2"; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
if [[ "${TANDEM_SKIP_BUILD:-0}" != 1 ]] && { [[ ! -f "$bench" ]] || [[ -n "$(find "$root" -path "$root/*/target" -prune -o -path "$root/.git" -prune -o \( -name '*.java' -o -name 'pom.xml' \) -newer "$bench" -print -quit)" ]]; }; then
  echo "run-simcalibrate: building jmh/target/benchmarks.jar..." >&2
  (cd "$root" && ./mvnw -q -B -DskipTests -pl jmh -am package >"$root/jmh/target-build.log" 2>&1) || { tail -40 "$root/jmh/target-build.log" >&2; exit 1; }
fi
dir="${TANDEM_BENCH_DIR:-/var/tmp}"
cd "$root"
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -Dtandem.bench.dir="$dir" \
  -cp "$bench" io.tandem.bench.sim.CostCalibration --out "$out" ${args[@]+"${args[@]}"} 2>&1 | grep -v '^WARNING' || true
[[ -f "$out" ]] || { echo "run-simcalibrate: no table written" >&2; exit 1; }
# --kvpath: the full calibration (no mode option) also measures the KV path over the table it wrote: the per-turn costs
# (wakeup.<stage>), the storage thread's CPU per sync and the KV server's and client's CPU per put live only there.
if ((kvpath)) && ((${#args[@]} == 0)); then
  "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx1g -Dtandem.bench.dir="$dir" \
    -cp "$bench" io.tandem.bench.sim.KvPathCalibration --base "$out" --out "$out" ${TANDEM_KVPATH_PORT:+--port "$TANDEM_KVPATH_PORT"} 2>&1 | grep -v '^WARNING' | grep -v ' INFO ' || true
fi
if ((install)); then
  cp "$out" "$root/core/src/main/resources/io/tandem/sim/cost/calibrated-costs.properties"
  echo "installed as core/src/main/resources/io/tandem/sim/cost/calibrated-costs.properties"
fi
