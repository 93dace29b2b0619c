#!/usr/bin/env bash
# wire23: wire22's trials.sh (same usage) with base = main 020b458c in /tmp/wire23-base, base port 22000, and the trees
# w22 (/tmp/wire23-w22: this branch's peer jar with the teardown fix, copied aside), new (/tmp/wire23-new: the same
# with the runtime hand-off tried and reverted, see docs/hotpath.md "Session 23"), wt (/work/wt-wire22).
# The runs of ab1/ab2 used a copy of wire22's script with these values written in; this wrapper runs the same lines.
export BASE_TREE=/tmp/wire23-base PORT=22000 WORK_DIR=/var/tmp/wire23-peerbench
export TREE_w22=/tmp/wire23-w22 TREE_new=/tmp/wire23-new TREE_wt=/work/wt-wire22
exec "$(cd "$(dirname "$0")" && pwd)/../wire22-2026-11-28/trials.sh" "$@"
