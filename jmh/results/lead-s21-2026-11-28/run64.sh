#!/usr/bin/env bash
# 64 clients, fsync off: 3 interleaved rounds of base (main c7c59051) and the merge for Raft; jgroups-raft, merge unreplicated and MultiPaxos.
d=$(dirname "$0"); C=64B-nofsync
$d/trials.sh $d/c64 b1:tandem-raft:64:$C:base m1:tandem-raft:64:$C:merge j1:jgroups-raft:64:$C:merge u1:tandem-unreplicated:64:$C:merge pm1:tandem-multipaxos:64:$C:merge
$d/trials.sh $d/c64 m2:tandem-raft:64:$C:merge b2:tandem-raft:64:$C:base u2:tandem-unreplicated:64:$C:merge j2:jgroups-raft:64:$C:merge pm2:tandem-multipaxos:64:$C:merge
$d/trials.sh $d/c64 j3:jgroups-raft:64:$C:merge b3:tandem-raft:64:$C:base m3:tandem-raft:64:$C:merge pm3:tandem-multipaxos:64:$C:merge u3:tandem-unreplicated:64:$C:merge
