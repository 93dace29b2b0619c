#!/usr/bin/env bash
# follow24: wire22's trials.sh (same usage) with base = main d4813d3d (/tmp/follow24-base: the harness jar and
# peer-tandem.jar of main built in /work/wt-follow24 before any change, copied aside), new = /work/wt-follow24, base
# port 25000. The runs of p0/ab used a copy of wire22's script with these values written in; this wrapper runs the same lines.
export BASE_TREE=/tmp/follow24-base PORT=25000 WORK_DIR=/var/tmp/follow24-peerbench TREE_new=/work/wt-follow24
exec "$(cd "$(dirname "$0")" && pwd)/../wire22-2026-11-28/trials.sh" "$@"
