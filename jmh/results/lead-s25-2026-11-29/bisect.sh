#!/usr/bin/env bash
# Issue 25, lead session 25: merge-ab.sh put the merge below main at 64 clients (quiet machine); which branch? Raft on main (r),
# on pend25 alone (q), on the merge (m), 64 clients, 64 B, fsync off, 2 rotated rounds.
d=$(cd "$(dirname "$0")" && pwd)
"$d"/trials.sh $d/x64 q1:tandem-raft:64:64B-nofsync:pend r1:tandem-raft:64:64B-nofsync:base m1:tandem-raft:64:64B-nofsync:merge
"$d"/trials.sh $d/x64 m2:tandem-raft:64:64B-nofsync:merge q2:tandem-raft:64:64B-nofsync:pend r2:tandem-raft:64:64B-nofsync:base
