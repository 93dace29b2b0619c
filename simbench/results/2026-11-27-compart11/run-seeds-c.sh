#!/usr/bin/env bash
# compart11 seeds, stream C: classic 3 nodes seeds 301-1000 (1-300 in stream A), 5 nodes 1-300, then deployment files seeds 51-100
cd "$(dirname "$0")/../../.."
TANDEM_SKIP_BUILD=1 ./tandem sim --protocol multipaxos --seed 301 --seeds 700 --no-minimize 2>&1 | tail -1 > simbench/results/2026-11-27-compart11/sim-classic-301-1000.txt
TANDEM_SKIP_BUILD=1 ./tandem sim --protocol multipaxos --nodes 5 --seeds 300 --no-minimize 2>&1 | tail -1 > simbench/results/2026-11-27-compart11/sim-classic5-300.txt
for f in a4-p10-grid24-r4-b3-u2-reads a3-p10-grid24-r4 b-p2-grid-r4-batchers-unbatchers d-g23-b2-u2-reads a4-p10-grid24-r4-b2-u2-reads p10-grid-r4; do
  n=$(grep -v '^#' simbench/compartments/$f.conf | grep -o 'n[0-9]*' | sed 's/n//' | sort -n | tail -1)
  echo "$f seeds 51-100: $(TANDEM_SKIP_BUILD=1 ./tandem sim --protocol multipaxos --nodes $n --deployment simbench/compartments/$f.conf --seed 51 --seeds 50 --max-failures 3 --no-minimize 2>&1 | tail -1)"
done > simbench/results/2026-11-27-compart11/sim-deployments-51-100.txt
