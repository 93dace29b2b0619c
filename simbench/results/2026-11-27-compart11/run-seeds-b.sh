#!/usr/bin/env bash
# compart11 seeds, stream B (reduced for time): batchers/unbatchers deployments, then --codec true on a3.
cd "$(dirname "$0")/../../.."
jmh/results/compart9-2026-11-27/run-sims.sh 50 simbench/compartments/b-p2-grid-r4-batchers-unbatchers.conf simbench/compartments/d-g23-b2-u2-reads.conf simbench/compartments/a4-p10-grid24-r4-b2-u2-reads.conf > simbench/results/2026-11-27-compart11/sim-deployments-b.txt 2>&1
TANDEM_SKIP_BUILD=1 ./tandem sim --protocol multipaxos --nodes 24 --deployment simbench/compartments/a3-p10-grid24-r4.conf --seeds 30 --codec true --no-minimize 2>&1 | tail -1 > simbench/results/2026-11-27-compart11/sim-codec-true-a3-30.txt
