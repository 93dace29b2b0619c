#!/usr/bin/env bash
# Issue 25, lead session 25: main's cells with the harness default warm-up: 64 and 16 clients, 64 B, fsync off; Raft (r),
# unreplicated (u), jgroups-raft (j), 3 rounds, order rotated.
d=$(cd "$(dirname "$0")" && pwd)
for c in 64 16; do
  "$d"/trials.sh $d/b$c r1:tandem-raft:$c:64B-nofsync:base u1:tandem-unreplicated:$c:64B-nofsync:base j1:jgroups-raft:$c:64B-nofsync:base
  "$d"/trials.sh $d/b$c j2:jgroups-raft:$c:64B-nofsync:base r2:tandem-raft:$c:64B-nofsync:base u2:tandem-unreplicated:$c:64B-nofsync:base
  "$d"/trials.sh $d/b$c u3:tandem-unreplicated:$c:64B-nofsync:base j3:jgroups-raft:$c:64B-nofsync:base r3:tandem-raft:$c:64B-nofsync:base
done
