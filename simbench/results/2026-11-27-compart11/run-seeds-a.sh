#!/usr/bin/env bash
# compart11 seeds, stream A (reduced for time: the machine's load was 40-60): classic 3 nodes, then proxy deployments.
cd "$(dirname "$0")/../../.."
TANDEM_SKIP_BUILD=1 ./tandem sim --protocol multipaxos --seeds 300 --no-minimize 2>&1 | tail -1 > simbench/results/2026-11-27-compart11/sim-classic-300.txt
jmh/results/compart9-2026-11-27/run-sims.sh 50 simbench/compartments/a4-p10-grid24-r4-b3-u2-reads.conf simbench/compartments/a3-p10-grid24-r4.conf simbench/compartments/p10-grid-r4.conf > simbench/results/2026-11-27-compart11/sim-deployments-a.txt 2>&1
