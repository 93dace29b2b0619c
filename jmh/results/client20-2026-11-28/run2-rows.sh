#!/usr/bin/env bash
# Run 2 (one bench call): issue 25's rows nobody measured on main 96fd279b: fsync on at 16 clients (2 interleaved rounds,
# 5 systems) and 1 client fsync off (tandem-raft on main and on this branch, jgroups-raft, sofajraft), 64 B values.
# Short trials to fit the budget: warm-up 6..8 s, 5 s measured.
d=$(cd "$(dirname "$0")" && pwd); F=64B-fsync; N=64B-nofsync
$d/trials.sh $d/rows 6 8 5 \
  rf1:tandem-raft:16:$F:base jf1:jgroups-raft:16:$F:base mf1:tandem-multipaxos:16:$F:base sf1:sofajraft:16:$F:base af1:aeron-cluster:16:$F:base \
  r1c:tandem-raft:1:$N:base j1c:jgroups-raft:1:$N:base s1c:sofajraft:1:$N:base n1c:tandem-raft:1:$N:new \
  af2:aeron-cluster:16:$F:base sf2:sofajraft:16:$F:base mf2:tandem-multipaxos:16:$F:base jf2:jgroups-raft:16:$F:base rf2:tandem-raft:16:$F:base
