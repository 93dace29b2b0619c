#!/usr/bin/env bash
# compart11 seeds, stream D: --codec true on two more files (a3 in stream B), 30 seeds each (time)
cd "$(dirname "$0")/../../.."
for f in p10-grid-r4 b-p2-grid-r4-batchers-unbatchers; do
  n=$(grep -v '^#' simbench/compartments/$f.conf | grep -o 'n[0-9]*' | sed 's/n//' | sort -n | tail -1)
  echo "$f --codec true: $(TANDEM_SKIP_BUILD=1 ./tandem sim --protocol multipaxos --nodes $n --deployment simbench/compartments/$f.conf --seeds 30 --codec true --no-minimize 2>&1 | tail -1)"
done > simbench/results/2026-11-27-compart11/sim-codec-true-more-30.txt
