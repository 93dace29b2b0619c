#!/usr/bin/env bash
# Lead, session 27, the quiet hour (no helper running): issue 25's fsync-off cells, main e64badda (r) against the merge
# (m: vsync27's sender-as-origin channel, raft27's quiet apply and Raft engine options) against jgroups-raft (j) and the
# unreplicated engine (u, merge), 3 rotated rounds, the harness default adaptive warm-up (one bench call per trial).
# Usage: quiet.sh CLIENTS...
d=$(cd "$(dirname "$0")" && pwd)
T="$d/trials.sh"
c=64B-nofsync
for n in "$@"; do
  "$T" $d/q$n r1:tandem-raft:$n:$c:main m1:tandem-raft:$n:$c:merge j1:jgroups-raft:$n:$c:main u1:tandem-unreplicated:$n:$c:merge
  "$T" $d/q$n j2:jgroups-raft:$n:$c:main u2:tandem-unreplicated:$n:$c:merge r2:tandem-raft:$n:$c:main m2:tandem-raft:$n:$c:merge
  "$T" $d/q$n m3:tandem-raft:$n:$c:merge r3:tandem-raft:$n:$c:main u3:tandem-unreplicated:$n:$c:merge j3:jgroups-raft:$n:$c:main
done
