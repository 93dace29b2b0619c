#!/usr/bin/env bash
# follow24: the profile first (base = main d4813d3d): tandem-raft 64 B fsync off at 64 clients, JFR CPU-time samples
# and per-thread allocation totals (jfrall), one trial; budget 60 s.
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/p0" 60 p64:tandem-raft:64:64B-nofsync:base:jfrall
