#!/usr/bin/env bash
# Main (f3bf0f16), 1 KiB values, 64 clients, fsync off: one round of tandem-raft, jgroups-raft, aeron-cluster, unreplicated.
d=$(dirname "$0"); C=1024B-nofsync
$d/trials.sh $d/k64 r1:tandem-raft:64:$C:main j1:jgroups-raft:64:$C:main a1:aeron-cluster:64:$C:main u1:tandem-unreplicated:64:$C:main
