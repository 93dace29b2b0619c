#!/usr/bin/env bash
# pend25: wire22's trials.sh (same usage) with base = main 35c59fcb (/tmp/pend25-base: a detached worktree of main,
# built there), new = /tmp/pend25-new (this branch's tree, its jars built and copied aside), base port 22000.
export BASE_TREE=/tmp/pend25-base PORT=22000 WORK_DIR=/var/tmp/pend25-peerbench TREE_new=/tmp/pend25-new
exec "$(cd "$(dirname "$0")" && pwd)/../wire22-2026-11-28/trials.sh" "$@"
