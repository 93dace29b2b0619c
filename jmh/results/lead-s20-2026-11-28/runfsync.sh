#!/usr/bin/env bash
# 64 clients, fsync on: 3 interleaved rounds of the merge's Raft and MultiPaxos, jgroups-raft, sofajraft, merge unreplicated.
d=$(dirname "$0"); C=64B-fsync
$d/trials.sh $d/c64f \
 m1:tandem-raft:64:$C:merge j1:jgroups-raft:64:$C:merge s1:sofajraft:64:$C:merge u1:tandem-unreplicated:64:$C:merge p1:tandem-multipaxos:64:$C:merge \
 j2:jgroups-raft:64:$C:merge m2:tandem-raft:64:$C:merge u2:tandem-unreplicated:64:$C:merge p2:tandem-multipaxos:64:$C:merge s2:sofajraft:64:$C:merge \
 m3:tandem-raft:64:$C:merge s3:sofajraft:64:$C:merge j3:jgroups-raft:64:$C:merge p3:tandem-multipaxos:64:$C:merge u3:tandem-unreplicated:64:$C:merge
