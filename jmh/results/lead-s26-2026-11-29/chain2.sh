#!/usr/bin/env bash
d=$(cd "$(dirname "$0")" && pwd)
while pgrep -f "quiet.sh" >/dev/null; do sleep 5; done
"$d/bisect.sh" > "$d/bisect.out" 2>&1
