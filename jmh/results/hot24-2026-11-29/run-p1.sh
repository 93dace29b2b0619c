#!/usr/bin/env bash
# hot24: the profile after (new = this branch's peer jar, 225aabc7), the same settings as run-p0.sh; budget 70 s.
d=$(cd "$(dirname "$0")" && pwd)
"$d/trials.sh" "$d/p1" 70 p64:tandem-raft:64:64B-nofsync:new:jfrall
