#!/usr/bin/env bash
# compart11 seeds: deployment files x 100 (compart9's run-sims.sh: random engine configs, mixed faults; write-only
# files through their -reads twins), classic 3 and 5 nodes, --codec true on three files. Outputs next to this script.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
out=simbench/results/2026-11-27-compart11
c=simbench/compartments
jmh/results/compart9-2026-11-27/run-sims.sh 100 $c/a1-p10-r2.conf $c/a2-p10-grid24-r2.conf $c/a3-p10-grid24-r4.conf $c/a4-p10-grid24-r4-b2-u2-reads.conf \
  $c/a4-p10-grid24-r4-b3-u2-reads.conf $c/p2-r2.conf $c/p10-grid-r4.conf $c/p10-grid-r4-batchers.conf $c/b-p2-grid-r4-batchers-unbatchers.conf \
  $c/d-g23-b2-u2-reads.conf $c/r-p2-grid-r6-batchers.conf $c/p7-r3.conf $c/p0-r2.conf > $out/sim-deployments-100.txt 2>&1
TANDEM_SKIP_BUILD=1 ./tandem sim --protocol multipaxos --seeds 1000 --no-minimize 2>&1 | tail -2 > $out/sim-classic-1000.txt
TANDEM_SKIP_BUILD=1 ./tandem sim --protocol multipaxos --nodes 5 --seeds 300 --no-minimize 2>&1 | tail -2 > $out/sim-classic5-300.txt
for f in p10-grid-r4 a3-p10-grid24-r4 b-p2-grid-r4-batchers-unbatchers; do
  n=$(grep -v '^#' $c/$f.conf | grep -o 'n[0-9]*' | sed 's/n//' | sort -n | tail -1)
  echo "== $f --codec true"
  TANDEM_SKIP_BUILD=1 ./tandem sim --protocol multipaxos --nodes $n --deployment $c/$f.conf --seeds 100 --codec true --no-minimize 2>&1 | tail -1
done > $out/sim-codec-true-100.txt
echo "all done $(date -u)" >> $out/sim-deployments-100.txt
