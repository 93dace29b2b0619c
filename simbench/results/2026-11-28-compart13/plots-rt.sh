#!/usr/bin/env bash
# Session 16 (lead): compart12's ablation charts redrawn on the table with every read-deployment timer measured
# (simbench/compartments/whatif-medians-hashkv-proposeloop-announce-readtimers.properties, "rt").
# The runs: run-sims.sh here (classic and the last step of each chart, seeds 1-3) and, seed 1, the middle steps:
#   env STEP=r-p2-grid-r6-batchers  simbench/results/2026-11-28-compart12/run-reads.sh TABLE rt-reads 1   (also r10, r16)
#   simbench/results/2026-11-27-compart11/run-model.sh TABLE rt-writes a1-p10-r2 1                     (also a2, a3)
# Needs jmh/target/benchmarks.jar. OUT=<the folder holding simbench-out> if the runs were made in another checkout.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
J="$(bin/find-jdk.sh)/bin/java"
O=${OUT:-.}/simbench-out; W=$O/compart11/rt-writes; RD=$O/compart12/rt-reads
chart() { "$J" -cp jmh/target/benchmarks.jar io.tandem.bench.sim.AblationChart "$@"; }
chart docs/img/compartments-ablation-writes.png "Writes, unbatched (model, rt)" \
  classic=$W/classic-s1,$W/classic-s2,$W/classic-s3 \
  a1-p10-r2=$W/a1-p10-r2-s1 a2-grid24-r2=$W/a2-p10-grid24-r2-s1 a3-grid24-r4=$W/a3-p10-grid24-r4-s1 \
  a4-b3-u2=$W/a4-p10-grid24-r4-b3-u2-s1,$W/a4-p10-grid24-r4-b3-u2-s2,$W/a4-p10-grid24-r4-b3-u2-s3
chart docs/img/compartments-ablation-reads.png "90 % reads, batched (model, rt)" \
  classic=$RD/classic-s1,$RD/classic-s2,$RD/classic-s3 \
  r6-batchers=$RD/r-p2-grid-r6-batchers-s1 r10-batchers=$RD/r-p2-grid-r10-batchers-s1 \
  r16-batchers=$RD/r-p2-grid-r16-batchers-s1 \
  grid24-r24=$RD/r-p2-grid24-r24-batchers-s1,$RD/r-p2-grid24-r24-batchers-s2,$RD/r-p2-grid24-r24-batchers-s3
