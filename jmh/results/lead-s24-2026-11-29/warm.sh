#!/usr/bin/env bash
# Issue 25, lead session 24: the 64-client cell again with the warm-up cap at 45 s (every trial of table.sh hit its 20 s
# cap, jgroups-raft with 21-23 % of its measured window in the JIT): Raft (hash map, merge) and jgroups-raft, 3 rounds
# rotated.
d=$(cd "$(dirname "$0")" && pwd)
"$d"/trials-warm.sh $d/w64 r1:tandem-raft:64:64B-nofsync:merge j1:jgroups-raft:64:64B-nofsync:merge
"$d"/trials-warm.sh $d/w64 j2:jgroups-raft:64:64B-nofsync:merge r2:tandem-raft:64:64B-nofsync:merge
"$d"/trials-warm.sh $d/w64 r3:tandem-raft:64:64B-nofsync:merge j3:jgroups-raft:64:64B-nofsync:merge
