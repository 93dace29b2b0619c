#!/usr/bin/env bash
# The batched write-only ablation (Fig. 12b, spec §4.6, in the order of docs/compartments-scaling.md) and the 90 %-read
# scaling step (Fig. 13, spec §4.7) in the performance simulator: one simulated 1-core machine per member. Usage:
#   simbench/compartments/run-batched.sh [COSTS] [CLIENTS]
# COSTS defaults to simbench/whatif-fsync-median.properties, CLIENTS to 512. Prints one line per run (ops/s, latency,
# leader CPU, leader messages sent per op, busiest machine@cores); writes results.csv and nodes.csv (every machine's
# CPU, queue and messages sent per op) to simbench-out/batched/<step>/ (OUT=dir to change).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
costs="${1:-$root/simbench/whatif-fsync-median.properties}"
clients="${2:-512}"
out="${OUT:-simbench-out/batched}"
cd "$root"
# WINDOW="warmup settle measure" shortens the virtual timeline (a CPU-bound run at 300k+ ops/s takes ~15 min of wall time on a loaded VM).
read -r warmup settle measure <<<"${WINDOW:-1s 500ms 1s}"
common=(--clients "$clients" --warmup "$warmup" --settle "$settle" --measure "$measure" --costs "$costs")
# ENGINE_OPTIONS="max-batch-slots=1 max-inflight-messages=1024" passes each KEY=VALUE as --engine-option (the paper's
# unbatched MultiPaxos: one command per Phase 2); the stdout line number below moves by one when it is set.
line=3
for o in ${ENGINE_OPTIONS:-}; do common+=(--engine-option "$o"); line=4; done
members() { grep -o 'n[0-9]*' "$1" | sed 's/n//' | sort -n | tail -1; }
run() { # name read-share [deployment]
  local name="$1" share="$2" f="${3:-}"
  if [ -z "$f" ]; then
    ./tandem simbench --protocol multipaxos --nodes 3 --read-share "$share" "${common[@]}" --out "$out/$name" | sed -n "${line}p" | sed "s/^/$name 3 /"
  else
    ./tandem simbench --protocol multipaxos --nodes "$(members "$f")" --deployment "$f" --read-share "$share" "${common[@]}" --out "$out/$name" | sed -n "${line}p" | sed "s/^/$name $(members "$f") /"
  fi
}
steps="${STEPS:-classic p2-r2 b-p2-grid-r2 b-p2-grid-r4 b-p2-grid-r4-batchers b-p2-grid-r4-batchers-unbatchers reads-classic reads-p2-grid-r4 reads-p2-grid-r6}"
for step in $steps; do
  case "$step" in
    classic) run classic 0 ;;
    reads-classic) run reads-classic 0.9 ;;
    reads-p2-grid-r4) run reads-p2-grid-r4 0.9 simbench/compartments/b-p2-grid-r4.conf ;;
    reads-p2-grid-r6) run reads-p2-grid-r6 0.9 simbench/compartments/r-p2-grid-r6.conf ;;
    reads-p2-grid-r6-batchers) run reads-p2-grid-r6-batchers 0.9 simbench/compartments/r-p2-grid-r6-batchers.conf ;;
    reads-*) run "$step" 0.9 "simbench/compartments/${step#reads-}.conf" ;; # e.g. reads-r-p2-grid-r10-batchers
    *) run "$step" 0 "simbench/compartments/$step.conf" ;;
  esac
done
