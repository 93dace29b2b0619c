#!/usr/bin/env bash
# Issue 25's deciding cells on the session-23 merge (main + fsync22 + wire22, tree "merge"): 3 interleaved rounds per
# cell with the order rotated, one trial per system and round; 64 B values, fsync off; 64 and 16 clients.
d=$(cd "$(dirname "$0")" && pwd)
cell() { # dir clients config label/system...
  local dir=$1 c=$2 cfg=$3; shift 3
  local -a e=()
  for s in "$@"; do IFS=/ read -r l sys <<<"$s"; e+=("$l:$sys:$c:$cfg:merge"); done
  local n=${#e[@]}
  for round in 1 2 3; do
    local -a r=()
    for ((i = 0; i < n; i++)); do local x=${e[$(( (i + (round - 1) * 2) % n ))]}; r+=("${x%%:*}$round:${x#*:}"); done
    "$d"/trials.sh $d/$dir "${r[@]}"
  done
}
cell c64 64 64B-nofsync r/tandem-raft j/jgroups-raft u/tandem-unreplicated pb/tandem-multipaxos
cell c16 16 64B-nofsync r/tandem-raft j/jgroups-raft
