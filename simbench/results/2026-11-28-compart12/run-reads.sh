#!/usr/bin/env bash
# compart12: the lead's 90 %-read check (docs/compartments-scaling.md "Lead's checks on the merge"): r-p2-grid24-r24-batchers,
# 4,096 clients, --read-share 0.9, window 50/10/50 ms, default (batched) engine config, one 1-core machine per member.
# Usage: [SETTLE=10ms] [JAR=path/to/tandem.jar] [OPTS="k=v ..."] [STEP=file-without-.conf] [CLIENTS=4096] run-reads.sh TABLE TAG SEED
# STEP=classic runs the 3-node classic deployment (512 clients unless CLIENTS says otherwise).
# Prints one line: ops/s, p50, leader CPU, the replicas' mean CPU and received messages per op, the busiest members.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
costs=$1; tag=$2; seed=$3; step=${STEP:-r-p2-grid24-r24-batchers}
dir=simbench-out/compart12/$tag/$step-s$seed
mkdir -p "$(dirname "$dir")"
if [ "$step" = classic ]; then args=(--nodes 3 --clients "${CLIENTS:-512}"); else
  f="simbench/compartments/$step.conf"; n=$(grep -v '^#' "$f" | grep -o 'n[0-9]*' | sed 's/n//' | sort -n | tail -1)
  args=(--nodes "$n" --deployment "$f" --clients "${CLIENTS:-4096}"); fi
opts=()
for o in ${OPTS:-}; do opts+=(--engine-option "$o"); done
if [ -n "${JAR:-}" ]; then cmd=("$(bin/find-jdk.sh)/bin/java" -jar "$JAR"); else cmd=(env TANDEM_SKIP_BUILD=1 ./tandem); fi
"${cmd[@]}" simbench --protocol multipaxos "${args[@]}" "${opts[@]}" --read-share "${READS:-0.9}" \
  --seed "$seed" --warmup 50ms --settle "${SETTLE:-10ms}" --measure 50ms --costs "$costs" --out "$dir" > "$dir.log" 2>&1 || { echo "$tag $step $seed FAILED (see $dir.log)"; exit 1; }
python3 - "$dir" "$tag" "$step" "$seed" <<'PY'
import csv, sys
d, tag, step, seed = sys.argv[1:5]
r = list(csv.DictReader(open(d + "/results.csv")))[0]
nodes = list(csv.DictReader(open(d + "/nodes.csv")))
busy = sorted(nodes, key=lambda n: -float(n["cpu_cores"]))[:3]
reps = [n for n in nodes if "replica" in n["roles"] or n["roles"] == "all"]
rcpu = sum(float(n["cpu_cores"]) for n in reps) / max(1, len(reps))
rrecv = sum(float(n["received_per_op"]) for n in reps) / max(1, len(reps))
print(f'{tag} {step} {seed} {float(r["throughput_ops_s"]):.0f} p50={float(r["p50_us"])/1000:.2f} leader_cpu={float(r["leader_cpu_cores"]):.2f} '
      f'replica_cpu={rcpu:.3f} replica_recv/op={rrecv:.3f} '
      + ' '.join(f'{b["node"]}({b["roles"]})@{float(b["cpu_cores"]):.2f}/disk{float(b["disk_busy"]):.2f}' for b in busy) + f' wall={float(r["wall_s"]):.0f}s', flush=True)
PY
