#!/usr/bin/env bash
# 64 clients, fsync off: 3 interleaved rounds of merge/epoll Raft, unreplicated on both trees, jgroups-raft.
d=$(dirname "$0"); C=64B-nofsync
$d/trials.sh $d/c64 \
 a1:tandem-raft:64:$C:merge e1:tandem-raft:64:$C:epoll j1:jgroups-raft:64:$C:merge ua1:tandem-unreplicated:64:$C:merge ue1:tandem-unreplicated:64:$C:epoll \
 e2:tandem-raft:64:$C:epoll a2:tandem-raft:64:$C:merge ue2:tandem-unreplicated:64:$C:epoll ua2:tandem-unreplicated:64:$C:merge j2:jgroups-raft:64:$C:merge \
 a3:tandem-raft:64:$C:merge e3:tandem-raft:64:$C:epoll j3:jgroups-raft:64:$C:merge ua3:tandem-unreplicated:64:$C:merge ue3:tandem-unreplicated:64:$C:epoll
