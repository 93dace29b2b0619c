#!/usr/bin/env bash
# hot24: wire22's trials.sh (same usage, same options) with hot24's values: base = main d4813d3d's harness and peer jars
# copied aside to /tmp/hot24-base (built in /work/wt-hot24 before any change), new = /tmp/hot24-new (this branch's peer jar
# copied aside), wt = /work/wt-hot24; base port 23000.
export BASE_TREE=/tmp/hot24-base PORT=23000 WORK_DIR=/var/tmp/hot24-peerbench
export TREE_new=/tmp/hot24-new TREE_wt=/work/wt-hot24
exec "$(cd "$(dirname "$0")" && pwd)/../wire22-2026-11-28/trials.sh" "$@"
