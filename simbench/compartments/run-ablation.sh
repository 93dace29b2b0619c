#!/usr/bin/env bash
# The unbatched write-only ablation of the Compartmentalization paper (Fig. 12a, spec §4.5, §7.6.4) in the
# performance simulator: classic MultiPaxos on 3 machines, then the decoupled deployments of this
# directory, one simulated machine (1 core) per member and so per role. Usage:
#   simbench/compartments/run-ablation.sh [COSTS] [CLIENTS]
# The two -batchers steps put batchers (spec §2.6, 64 commands or 1 ms) where the frontends were.
# COSTS defaults to simbench/whatif-fsync-median.properties (the calibrated table with the fsync at its
# median: the paper kept everything in memory), CLIENTS to 512. Results: simbench-out/compartments/<step>/results.csv (OUT=dir to change)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
costs="${1:-$root/simbench/whatif-fsync-median.properties}"
clients="${2:-512}"
cd "$root"
common=(--clients "$clients" --warmup 1s --settle 500ms --measure 1s --costs "$costs")
# ENGINE_OPTIONS="max-batch-slots=1 max-inflight-messages=1024" passes each KEY=VALUE as --engine-option.
for o in ${ENGINE_OPTIONS:-}; do common+=(--engine-option "$o"); done
./tandem simbench --protocol multipaxos --nodes 3 "${common[@]}" --out "${OUT:-simbench-out/compartments}/classic" | tail -2 | head -1 | sed 's/^/classic        /'
for step in p0-r2 p2-r2 p3-r2 p4-r2 p5-r2 p6-r2 p7-r2 p7-r3 p10-r3 p10-grid-r4 p2-r2-batchers p10-grid-r4-batchers; do
  f="simbench/compartments/$step.conf"
  n=$(grep -o 'n[0-9]*' "$f" | sed 's/n//' | sort -n | tail -1)
  ./tandem simbench --protocol multipaxos --nodes "$n" --deployment "$f" "${common[@]}" --out "${OUT:-simbench-out/compartments}/$step" | tail -2 | head -1 | sed "s/^/$step $n /"
done
