#!/usr/bin/env bash
# Issue 25's table on main f3bf0f16 (the session-22 merge changes no server code unless a later A/B says so):
# 3 interleaved rounds per cell, one trial per system and round; 64 and 16 clients, fsync off and on; 64 B values.
d=$(dirname "$0")
cell() { # dir clients config label/system...
  local dir=$1 c=$2 cfg=$3; shift 3
  local -a e=()
  for s in "$@"; do IFS=/ read -r l sys <<<"$s"; e+=("$l:$sys:$c:$cfg:main"); done
  local n=${#e[@]}
  for round in 1 2 3; do
    local -a r=()
    for ((i = 0; i < n; i++)); do local x=${e[$(( (i + (round - 1) * 2) % n ))]}; r+=("${x%%:*}$round:${x#*:}"); done
    "$d"/trials.sh $d/$dir "${r[@]}"
  done
}
cell c64 64 64B-nofsync r/tandem-raft j/jgroups-raft u/tandem-unreplicated a/aeron-cluster pb/tandem-multipaxos
cell c16 16 64B-nofsync r/tandem-raft j/jgroups-raft u/tandem-unreplicated a/aeron-cluster
cell c64f 64 64B-fsync r/tandem-raft j/jgroups-raft u/tandem-unreplicated
cell c16f 16 64B-fsync j/jgroups-raft r/tandem-raft
