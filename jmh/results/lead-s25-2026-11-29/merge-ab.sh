#!/usr/bin/env bash
# Issue 25, lead session 25: the merge (pend25, vsync25, jit25's disk loop) against main at 64 clients, 64 B, fsync off:
# Raft on main (r), Raft on the merge (m), jgroups-raft (j), 3 rotated rounds; then one round at 16 clients.
d=$(cd "$(dirname "$0")" && pwd)
"$d"/trials.sh $d/m64 r1:tandem-raft:64:64B-nofsync:base m1:tandem-raft:64:64B-nofsync:merge j1:jgroups-raft:64:64B-nofsync:base
"$d"/trials.sh $d/m64 j2:jgroups-raft:64:64B-nofsync:base r2:tandem-raft:64:64B-nofsync:base m2:tandem-raft:64:64B-nofsync:merge
"$d"/trials.sh $d/m64 m3:tandem-raft:64:64B-nofsync:merge j3:jgroups-raft:64:64B-nofsync:base r3:tandem-raft:64:64B-nofsync:base
"$d"/trials.sh $d/m16 m1:tandem-raft:16:64B-nofsync:merge r1:tandem-raft:16:64B-nofsync:base j1:jgroups-raft:16:64B-nofsync:base
