#!/usr/bin/env bash
# fsync22 (batch headers) in real processes: tandem-raft, 16 and 64 clients, fsync on; main/merge interleaved.
d=$(cd "$(dirname "$0")" && pwd); o=$d/fsync-ab
$d/trials.sh $o m16a:tandem-raft:16:64B-fsync:main n16a:tandem-raft:16:64B-fsync:merge n64a:tandem-raft:64:64B-fsync:merge m64a:tandem-raft:64:64B-fsync:main
$d/trials.sh $o n16b:tandem-raft:16:64B-fsync:merge m16b:tandem-raft:16:64B-fsync:main m64b:tandem-raft:64:64B-fsync:main n64b:tandem-raft:64:64B-fsync:merge
