#!/usr/bin/env bash
# Mode L of opt-psmr.md §8.2 (issue 20): parallel execution end to end on loopback. For each execution mode and dependent
# share, starts a fresh local KV cluster (`./tandem cluster`, 3 Raft members, each executing with --threads workers), runs
# io.tandem.jmh.psmr.EndToEndBench against it (closed loop, CLIENTS x WINDOW commands in flight; latency percentiles from the
# client, pass and fail latency of optimistic P-SMR from the members' /metrics), stops it, and appends one CSV row per run.
# Options: --modes "sequential psmr opt-psmr" --deps "0 10 100" --keys N --clients C --window W --warmup S --measure S
#          --threads K --runs R --base-port P --fsync|--no-fsync --out DIR
# Run it alone on the machine (or through a tool that gives it the CPU): the cluster, the load and the workers share the cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAVA_HOME="$("$root/bin/find-jdk.sh")"
export JAVA_HOME
modes="sequential psmr opt-psmr"; deps="0 10 100"; keys=20000; clients=4; window=50; warmup=10; measure=30; threads=2; runs=1
base=27001; fsync=--no-fsync; out="$root/jmh/target/psmr-e2e/$(date +%Y%m%d-%H%M%S)"
usage() { sed -n '2,/^set -euo/{s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" | grep -v '^set -euo'; }
# Every option but the flags takes a value: one missing fails here, with its name, before any build.
while (($#)); do
  case "$1" in
    -h|--help) usage; exit 0 ;;
  esac
  if [[ "$1" == --* ]] && ! [[ "$1" =~ ^--(fsync|no-fsync)$ ]] && (($# < 2)); then echo "run-psmr-e2e: $1 needs a value (see --help)" >&2; exit 2; fi
  case "$1" in
    --modes) modes="$2"; shift ;; --deps) deps="$2"; shift ;; --keys) keys="$2"; shift ;; --clients) clients="$2"; shift ;;
    --window) window="$2"; shift ;; --warmup) warmup="$2"; shift ;; --measure) measure="$2"; shift ;; --threads) threads="$2"; shift ;;
    --runs) runs="$2"; shift ;; --base-port) base="$2"; shift ;; --fsync) fsync=--fsync ;; --no-fsync) fsync=--no-fsync ;;
    --out) out="$2"; shift ;;
    *) echo "run-psmr-e2e: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out"
jar="$root/jmh/target/benchmarks.jar"
if [[ "${TANDEM_SKIP_BUILD:-0}" != 1 ]]; then
  echo "run-psmr-e2e: building jmh and the CLI..." >&2
  (cd "$root" && ./mvnw -q -B -DskipTests -pl jmh,kvstore -am package >"$out/build.log" 2>&1) || { tail -40 "$out/build.log" >&2; exit 1; }
fi
export TANDEM_SKIP_BUILD=1
endpoints="127.0.0.1:$((base + 1000)),127.0.0.1:$((base + 1001)),127.0.0.1:$((base + 1002))"
metrics="http://127.0.0.1:$((base + 2000))/metrics,http://127.0.0.1:$((base + 2001))/metrics,http://127.0.0.1:$((base + 2002))/metrics"
csv="$out/e2e.csv"
for run in $(seq 1 "$runs"); do
  for dep in $deps; do
    for mode in $modes; do
      dir="$out/cluster-$mode-$dep-$run"
      t=1; [[ "$mode" != sequential ]] && t="$threads"
      "$root/tandem" cluster --dir "$dir" --fresh --base-port "$base" --execution "$mode" --threads "$t" $fsync >"$dir.log" 2>&1 &
      pid=$!
      ok=0
      for _ in $(seq 1 120); do
        if "$root/tandem" status --dir "$dir" --timeout 2s 2>/dev/null | grep -qi leader; then ok=1; break; fi
        if ! kill -0 "$pid" 2>/dev/null; then break; fi
        sleep 0.5
      done
      if [[ $ok != 1 ]]; then echo "run-psmr-e2e: the $mode cluster did not start (see $dir.log)" >&2; kill "$pid" 2>/dev/null || true; exit 1; fi
      echo "run-psmr-e2e: run $run, $mode, $dep % dependent, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
      "$JAVA_HOME/bin/java" -Xms1g -Xmx1g -XX:+UseParallelGC -cp "$jar" io.tandem.jmh.psmr.EndToEndBench "$mode" "$endpoints" "$metrics" \
        "$keys" "$dep" "$clients" "$window" "$warmup" "$measure" "$csv" >"$out/load-$mode-$dep-$run.log" 2>&1 \
        || echo "run-psmr-e2e: the load exited $? (see $out/load-$mode-$dep-$run.log)" >&2
      "$root/tandem" cluster --dir "$dir" --stop >/dev/null 2>&1 || true
      wait "$pid" 2>/dev/null || true
    done
  done
done
column -s, -t "$csv" >&2 || cat "$csv" >&2
echo "run-psmr-e2e: $csv" >&2
