#!/usr/bin/env bash
# Lead, session 26: issue 22's table right after the issue-25 quiet run (quiet.sh) ends.
d=$(cd "$(dirname "$0")" && pwd)
while pgrep -f "lead-s26-2026-11-29/quiet.sh" >/dev/null; do sleep 5; done
/work/tools/bench "$d/table-vsync.sh" > "$d/table-vsync.txt" 2> "$d/table-vsync.err"
