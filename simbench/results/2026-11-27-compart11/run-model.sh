#!/usr/bin/env bash
# compart11: one unbatched ablation step in the performance simulator, as compart10's run-model.sh (window 30/5/30 ms,
# 2048 clients, one 1-core machine per member; classic 3 nodes at 512) with extra engine options and a jar to choose.
# Usage: [JAR=path/to/tandem.jar] [OPTS="proxy-stripe-slots=1 ..."] run-model.sh TABLE-FILE TAG STEP SEED
# STEP: classic or a simbench/compartments/*.conf name without .conf. Prints one line: tag step seed ops/s p50 leader
# cpu, sent/received per op, the three busiest members, replicas' received messages per op (Chosen and the rest).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
costs=$1; tag=$2; step=$3; seed=$4
dir=simbench-out/compart11/$tag/$step-s$seed
mkdir -p "$(dirname "$dir")"
if [ "$step" = classic ]; then args=(--nodes 3 --clients 512); else
  f="simbench/compartments/$step.conf"; n=$(grep -v '^#' "$f" | grep -o 'n[0-9]*' | sed 's/n//' | sort -n | tail -1)
  args=(--nodes "$n" --deployment "$f" --clients 2048); fi
opts=(--engine-option max-batch-slots=1 --engine-option max-inflight-messages=1024)
for o in ${OPTS:-}; do opts+=(--engine-option "$o"); done
if [ -n "${JAR:-}" ]; then cmd=(java -jar "$JAR"); else cmd=(env TANDEM_SKIP_BUILD=1 ./tandem); fi
"${cmd[@]}" simbench --protocol multipaxos "${args[@]}" "${opts[@]}" \
  --seed "$seed" --warmup 30ms --settle 5ms --measure 30ms --costs "$costs" --out "$dir" > "$dir.log" 2>&1 || { echo "$tag $step $seed FAILED (see $dir.log)"; exit 1; }
python3 - "$dir" "$tag" "$step" "$seed" <<'PY'
import csv, sys
d, tag, step, seed = sys.argv[1:5]
r = list(csv.DictReader(open(d + "/results.csv")))[0]
nodes = list(csv.DictReader(open(d + "/nodes.csv")))
ld = r["leader"]; lrow = next((n for n in nodes if n["node"] == ld), None)
busy = sorted(nodes, key=lambda n: -float(n["cpu_cores"]))[:3]
reps = [n for n in nodes if "replica" in n["roles"] or n["roles"] == "all"]
rrecv = sum(float(n["received_per_op"]) for n in reps) / max(1, len(reps))
print(f'{tag} {step} {seed} {float(r["throughput_ops_s"]):.0f} p50={float(r["p50_us"])/1000:.2f} leader_cpu={float(r["leader_cpu_cores"]):.2f} '
      f'sent/op={lrow["sent_per_op"] if lrow else "-"} recv/op={lrow["received_per_op"] if lrow else "-"} replica_recv/op={rrecv:.2f} '
      + ' '.join(f'{b["node"]}({b["roles"]})@{float(b["cpu_cores"]):.2f}/disk{float(b["disk_busy"]):.2f}' for b in busy) + f' wall={float(r["wall_s"]):.0f}s', flush=True)
PY
