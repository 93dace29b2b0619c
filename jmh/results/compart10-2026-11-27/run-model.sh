#!/usr/bin/env bash
# compart10: unbatched ablation steps in the performance simulator, as compart9's run-ablation.sh (window 30/5/30 ms,
# 2048 clients, one 1-core machine per member) but with the cost table as an argument.
# Usage: run-model.sh TABLE-FILE TAG STEP SEED   (STEP: classic or a simbench/compartments/*.conf name without .conf)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
costs=$1; tag=$2; step=$3; seed=$4
dir=simbench-out/compart10/$tag/$step-s$seed
mkdir -p "$(dirname "$dir")"
if [ "$step" = classic ]; then args=(--nodes 3 --clients 512); else
  f="simbench/compartments/$step.conf"; n=$(grep -v '^#' "$f" | grep -o 'n[0-9]*' | sed 's/n//' | sort -n | tail -1)
  args=(--nodes "$n" --deployment "$f" --clients 2048); fi
TANDEM_SKIP_BUILD=1 ./tandem simbench --protocol multipaxos "${args[@]}" --engine-option max-batch-slots=1 --engine-option max-inflight-messages=1024 \
  --seed "$seed" --warmup 30ms --settle 5ms --measure 30ms --costs "$costs" --out "$dir" > "$dir.log" 2>&1 || { echo "$tag $step $seed FAILED"; exit 1; }
python3 - "$dir" "$tag" "$step" "$seed" <<'PY'
import csv, sys
d, tag, step, seed = sys.argv[1:5]
r = list(csv.DictReader(open(d + "/results.csv")))[0]
nodes = list(csv.DictReader(open(d + "/nodes.csv")))
ld = r["leader"]; lrow = next((n for n in nodes if n["node"] == ld), None)
busy = sorted(nodes, key=lambda n: -float(n["cpu_cores"]))[:3]
print(f'{tag} {step} {seed} {float(r["throughput_ops_s"]):.0f} p50={float(r["p50_us"])/1000:.2f} leader_cpu={float(r["leader_cpu_cores"]):.2f} '
      f'sent/op={lrow["sent_per_op"] if lrow else "-"} recv/op={lrow["received_per_op"] if lrow else "-"} '
      + ' '.join(f'{b["node"]}({b["roles"]})@{float(b["cpu_cores"]):.2f}/disk{float(b["disk_busy"]):.2f}' for b in busy) + f' wall={float(r["wall_s"]):.0f}s', flush=True)
PY
