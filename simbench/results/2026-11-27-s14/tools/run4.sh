#!/usr/bin/env bash
# Session 14 (perfsim9): the 64-client real points of unreplicated and Raft again, with per-thread CPU (the disk looked idle at 19:21).
cd /work/wt-perfsim9
R=/work/wt-perfsim9/simbench/results/2026-11-27-s14
echo "start $(date -u +%H:%M:%S) load $(cat /proc/loadavg)" >"$R/run4.conditions"
TANDEM_SKIP_BUILD=1 TANDEM_PEERBENCH_WORK=/var/tmp/perfsim9-peerbench TANDEM_PEERBENCH_PORT=27000 \
  timeout 240 jmh/run-simvalidate.sh --real-only --disk none --warmup 10 --measure 8 --profile-window --clients 64 --systems "tandem-unreplicated tandem-raft" --out "$R/real64b"
echo "end $(date -u +%H:%M:%S) load $(cat /proc/loadavg)" >>"$R/run4.conditions"
