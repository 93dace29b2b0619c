#!/usr/bin/env bash
# Main (f3bf0f16), 1 KiB values, 64 clients, fsync off: rounds 2 and 3 (round 1 in kib-main.sh).
d=$(dirname "$0"); C=1024B-nofsync
$d/trials.sh $d/k64 a2:aeron-cluster:64:$C:main u2:tandem-unreplicated:64:$C:main r2:tandem-raft:64:$C:main j2:jgroups-raft:64:$C:main
$d/trials.sh $d/k64 j3:jgroups-raft:64:$C:main r3:tandem-raft:64:$C:main u3:tandem-unreplicated:64:$C:main a3:aeron-cluster:64:$C:main
