#!/usr/bin/env bash
# Main (f3bf0f16) against every peer at the cells not run recently: 1 client (3 rounds: raft, jgroups-raft, aeron),
# 64 clients fsync off with aeron, sofajraft, ratis (one trial each beside raft and jgroups-raft).
d=$(dirname "$0"); C=64B-nofsync
$d/trials.sh $d/p1 r1:tandem-raft:1:$C:main j1:jgroups-raft:1:$C:main a1:aeron-cluster:1:$C:main
$d/trials.sh $d/p1 a2:aeron-cluster:1:$C:main r2:tandem-raft:1:$C:main j2:jgroups-raft:1:$C:main
$d/trials.sh $d/p1 j3:jgroups-raft:1:$C:main a3:aeron-cluster:1:$C:main r3:tandem-raft:1:$C:main
$d/trials.sh $d/p64 r1:tandem-raft:64:$C:main a1:aeron-cluster:64:$C:main s1:sofajraft:64:$C:main j1:jgroups-raft:64:$C:main t1:ratis:64:$C:main
