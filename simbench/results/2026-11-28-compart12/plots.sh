#!/usr/bin/env bash
# compart12: the ablation bar charts (docs/img/compartments-ablation-{writes,reads}.png) from simbench results.csv files:
# throughput per step (median of the runs, whiskers lowest/highest, x the first step) and median latency.
# The runs: simbench/results/2026-11-27-compart11/run-model.sh (writes, unbatched, 2048 clients; classic 512) and
# run-reads.sh here (90 % reads, batched, 4096 clients; classic 512), table w1a, tags as below; then this script.
# Needs jmh/target/benchmarks.jar (./mvnw -q -pl jmh -am package -DskipTests).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
J="$(bin/find-jdk.sh)/bin/java"
W=simbench-out/compart11; RD=simbench-out/compart12
chart() { "$J" -cp jmh/target/benchmarks.jar io.tandem.bench.sim.AblationChart "$@"; }
chart docs/img/compartments-ablation-writes.png "Writes, unbatched (model, w1a)" \
  classic=$W/fixc-w1a/classic-s1,$W/fixc-w1a/classic-s2,$W/fixc-w1a/classic-s3 \
  a1-p10-r2=$W/fixc-w1a/a1-p10-r2-s1 a2-grid24-r2=$W/fixc-w1a/a2-p10-grid24-r2-s1 \
  a3-grid24-r4=$W/fixc-w1a/a3-p10-grid24-r4-s1,$W/fixc-w1a/a3-p10-grid24-r4-s2,$W/fixc-w1a/a3-p10-grid24-r4-s3 \
  a4-b3-u2=$W/fixc-w1a/a4-p10-grid24-r4-b3-u2-s1,$W/fixa-w1a/a4-p10-grid24-r4-b3-u2-s2,$W/fixa-w1a/a4-p10-grid24-r4-b3-u2-s3
chart docs/img/compartments-ablation-reads.png "90 % reads, batched (model, w1a)" \
  classic=$RD/fixa-w1a/classic-s1,$RD/fixa-w1a/classic-s2,$RD/fixa-w1a/classic-s3 \
  r6-batchers=$RD/fixc-w1a/r-p2-grid-r6-batchers-s1 r10-batchers=$RD/fixc-w1a/r-p2-grid-r10-batchers-s1 \
  r16-batchers=$RD/fixc-w1a/r-p2-grid-r16-batchers-s1 \
  grid24-r24=$RD/fixc-w1a/r-p2-grid24-r24-batchers-s1,$RD/fixc-w1a/r-p2-grid24-r24-batchers-s2,$RD/fixc-w1a/r-p2-grid24-r24-batchers-s3
