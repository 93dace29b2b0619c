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
src="$root/jmh/src/main/java/io/tandem/bench/sim/CostCalibration.java"
while (($#)); do
  case "$1" in
    -h|--help)
      # At once, without a build: this header, then CostCalibration's own usage line read from its source.
      sed -n '2,/^set -euo/{s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" | grep -v '^set -euo'
      [[ -f "$src" ]] && sed -n '/case "--help"/,/return;/{s/.*"\(usage: [^"]*\)".*/\1/p;s/^ *+ "\([^"]*\)".*/\1/p}' "$src" | tr -d '\n' && echo
      exit 0 ;;
    --install) install=1 ;;
    --kvpath) kvpath=1 ;;
    --out) (($# >= 2)) || { echo "run-simcalibrate: --out needs a value (see --help)" >&2; exit 2; }; out="$2"; shift ;;
    *)
      # CostCalibration's options, read from its source before any build: an unknown one, or one without its value, fails here.
      if [[ -f "$src" ]]; then
        if ! grep -q -E "case (\"[^\"]*\", )*\"$1\"" "$src"; then
          echo "run-simcalibrate: unknown option $1 (see --help)" >&2; exit 2
        fi
        if grep -E "case (\"[^\"]*\", )*\"$1\"" "$src" | grep -q 'args\[++i\]' && (($# < 2)); then
          echo "run-simcalibrate: $1 needs a value (see --help)" >&2; exit 2
        fi
      fi
      args+=("$1")
      if [[ -f "$src" ]] && grep -E "case (\"[^\"]*\", )*\"$1\"" "$src" | grep -q 'args\[++i\]'; then args+=("$2"); shift; fi ;;
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
