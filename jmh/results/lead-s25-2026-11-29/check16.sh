#!/usr/bin/env bash
# Issue 25, lead session 25: merge-ab.sh's one 16-client pair had the merge at 0.79x main; two more pairs (m r, r m).
d=$(cd "$(dirname "$0")" && pwd)
"$d"/trials.sh $d/m16 m2:tandem-raft:16:64B-nofsync:merge r2:tandem-raft:16:64B-nofsync:base r3:tandem-raft:16:64B-nofsync:base m3:tandem-raft:16:64B-nofsync:merge
