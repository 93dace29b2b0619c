#!/usr/bin/env bash
# Issue 25, lead session 25, after base-table.sh: main's fsync-on cells (64 B, 64 and 16 clients; Raft r, unreplicated u,
# jgroups-raft j, 3 rotated rounds), then one trial of Aeron Cluster (a) in each cell and of SOFAJRaft (s) and
# Ratis (t) at 64 clients (session 22: both far below jgroups-raft), MultiPaxos (p) at 64 clients fsync off.
d=$(cd "$(dirname "$0")" && pwd)
for c in 64 16; do
  "$d"/trials.sh $d/f$c r1:tandem-raft:$c:64B-fsync:base u1:tandem-unreplicated:$c:64B-fsync:base j1:jgroups-raft:$c:64B-fsync:base
  "$d"/trials.sh $d/f$c j2:jgroups-raft:$c:64B-fsync:base r2:tandem-raft:$c:64B-fsync:base u2:tandem-unreplicated:$c:64B-fsync:base
  "$d"/trials.sh $d/f$c u3:tandem-unreplicated:$c:64B-fsync:base j3:jgroups-raft:$c:64B-fsync:base r3:tandem-raft:$c:64B-fsync:base
done
"$d"/trials.sh $d/b64 a1:aeron-cluster:64:64B-nofsync:base s1:sofajraft:64:64B-nofsync:base t1:ratis:64:64B-nofsync:base p1:tandem-multipaxos:64:64B-nofsync:base
"$d"/trials.sh $d/f64 a1:aeron-cluster:64:64B-fsync:base s1:sofajraft:64:64B-fsync:base t1:ratis:64:64B-fsync:base
"$d"/trials.sh $d/b16 a1:aeron-cluster:16:64B-nofsync:base
"$d"/trials.sh $d/f16 a1:aeron-cluster:16:64B-fsync:base
