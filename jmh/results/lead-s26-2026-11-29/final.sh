#!/usr/bin/env bash
# Lead, session 26: the final merge (main + follow26 + vsync26's benchmark warm-up, without its expiry bound) against
# main at 64 clients (2 rounds, the default warm-up), then issue 22's whole table again on the final merge.
d=$(cd "$(dirname "$0")" && pwd)
T="$d/trials.sh"; c=64B-nofsync
"$T" $d/c64 n1:tandem-raft:64:$c:merge r1:tandem-raft:64:$c:main
"$T" $d/c64 r2:tandem-raft:64:$c:main n2:tandem-raft:64:$c:merge
/work/tools/bench "$d/table-vsync.sh" > "$d/table-vsync.txt" 2> "$d/table-vsync.err"
