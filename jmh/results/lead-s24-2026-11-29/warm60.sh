#!/usr/bin/env bash
# Issue 25, lead session 24: the 64-client cell again with the harness default warm-up cap, 60 s (every trial of table.sh hit its 20 s
# cap, jgroups-raft with 21-23 % of its measured window in the JIT): Raft (hash map, merge) and jgroups-raft, 3 rounds
# rotated (the order of warm.sh reversed per round).
d=$(cd "$(dirname "$0")" && pwd)
"$d"/trials-60.sh $d/d64 j1:jgroups-raft:64:64B-nofsync:merge r1:tandem-raft:64:64B-nofsync:merge
"$d"/trials-60.sh $d/d64 r2:tandem-raft:64:64B-nofsync:merge j2:jgroups-raft:64:64B-nofsync:merge
"$d"/trials-60.sh $d/d64 j3:jgroups-raft:64:64B-nofsync:merge r3:tandem-raft:64:64B-nofsync:merge
