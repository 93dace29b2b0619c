#!/usr/bin/env bash
# pend25: the profile first (base = main 35c59fcb): tandem-raft 64 B fsync off at 64 clients, JFR CPU-time samples and
# per-thread allocation totals (jfrall), one trial; budget 70 s.
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/p0" 70 p64:tandem-raft:64:64B-nofsync:base:jfrall
