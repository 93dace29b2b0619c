#!/usr/bin/env bash
# The write-only ablation of issue 21, session 13 (compart9), in the performance simulator: one 1-core machine per
# member, cost table simbench/compartments/whatif-medians-hashkv.properties, seeds SEEDS (default "1 2 3"), both
# MODES (batched = default engine config; unbatched = max-batch-slots=1 max-inflight-messages=1024, the paper's
# Fig. 12a baseline). Steps: classic (3 nodes, 512 clients), then the a*-*.conf files of simbench/compartments/
# (CLIENTS, default 2048). Prints one line per run:
#   mode step seed ops/s p50_ms mean_ms leader_cpu leader_sent/op leader_received/op busiest@cores
# and keeps results.csv/nodes.csv under $OUT/<mode>/<step>-s<seed>/ (default simbench-out/compart9).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
out="${OUT:-simbench-out/compart9}"
seeds="${SEEDS:-1 2 3}"
modes="${MODES:-unbatched batched}"
steps="${STEPS:-classic a1-p10-r2 a2-p10-grid24-r2 a3-p10-grid24-r4 a4-p10-grid24-r4-b2-u2}"
clients="${CLIENTS:-2048}"
read -r warmup settle measure <<<"${WINDOW:-50ms 10ms 50ms}"
costs=simbench/compartments/whatif-medians-hashkv.properties
summary() { # dir mode step seed
  python3 - "$@" <<'PY'
import csv, sys
d, mode, step, seed = sys.argv[1:5]
r = list(csv.DictReader(open(d + "/results.csv")))[0]
nodes = list(csv.DictReader(open(d + "/nodes.csv")))
ld = r["leader"]
lrow = next((n for n in nodes if n["node"] == ld), None)
busy = max(nodes, key=lambda n: float(n["cpu_cores"]))
print(f'{mode} {step} {seed} {float(r["throughput_ops_s"]):.0f} {float(r["p50_us"])/1000:.2f} {float(r["mean_us"])/1000:.2f} '
      f'{float(r["leader_cpu_cores"]):.2f} {lrow["sent_per_op"] if lrow else "-"} {lrow["received_per_op"] if lrow else "-"} '
      f'{busy["node"]}({busy["roles"]})@{float(busy["cpu_cores"]):.2f} wall={float(r["wall_s"]):.0f}s', flush=True)
PY
}
# JAR=path runs that jar instead of ./tandem's (the A/B of the engine change: a build of the commit before it).
tandem() { if [ -n "${JAR:-}" ]; then java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -jar "$JAR" "$@"; else TANDEM_SKIP_BUILD=1 ./tandem "$@"; fi; }
for mode in $modes; do
  mkdir -p "$out/$mode"
  opts=()
  [ "$mode" = unbatched ] && opts=(--engine-option max-batch-slots=1 --engine-option max-inflight-messages=1024)
  for seed in $seeds; do
    for step in $steps; do
      dir="$out/$mode/$step-s$seed"
      if [ "$step" = classic ]; then
        args=(--nodes 3 --clients 512)
      else
        f="simbench/compartments/$step.conf"
        n=$(grep -v '^#' "$f" | grep -o 'n[0-9]*' | sed 's/n//' | sort -n | tail -1)
        args=(--nodes "$n" --deployment "$f" --clients "$clients")
      fi
      tandem simbench --protocol multipaxos "${args[@]}" "${opts[@]}" --seed "$seed" \
        --warmup "$warmup" --settle "$settle" --measure "$measure" --costs "$costs" --out "$dir" >"$dir.log" 2>&1 \
        || { echo "$mode $step $seed FAILED (see $dir.log)"; continue; }
      summary "$dir" "$mode" "$step" "$seed"
    done
  done
done
