#!/usr/bin/env bash
# wire22: the profile first (base = main f3bf0f16): tandem-raft 64 B fsync off at 16 and 64 clients, JFR CPU-time samples
# and per-thread allocation totals (jfrall), one trial each; budget 110 s.
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/p0" 110 p16:tandem-raft:16:64B-nofsync:base:jfrall p64:tandem-raft:64:64B-nofsync:base:jfrall
