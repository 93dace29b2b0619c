#!/usr/bin/env bash
# The session-22 merge against main and the peers: 3 interleaved rounds per cell, one trial per system and round.
# Cells: 64 and 16 clients fsync off, 64 and 16 clients fsync on; 64 B values. Order rotates per round.
d=$(dirname "$0")
cell() { # dir clients config systems...
  local dir=$1 c=$2 cfg=$3; shift 3
  local -a e=()
  for s in "$@"; do IFS=/ read -r l sys tree <<<"$s"; e+=("$l:$sys:$c:$cfg:$tree"); done
  local n=${#e[@]}
  for round in 1 2 3; do
    local -a r=()
    for ((i = 0; i < n; i++)); do local x=${e[$(( (i + (round - 1) * 2) % n ))]}; r+=("${x%%:*}$round:${x#*:}"); done
    $d/trials.sh $d/$dir "${r[@]}"
  done
}
cell c64 64 64B-nofsync r/tandem-raft/main m/tandem-raft/merge j/jgroups-raft/merge u/tandem-unreplicated/merge a/aeron-cluster/merge p/tandem-multipaxos/merge
cell c16 16 64B-nofsync m/tandem-raft/merge r/tandem-raft/main j/jgroups-raft/merge u/tandem-unreplicated/merge a/aeron-cluster/merge
cell c64f 64 64B-fsync m/tandem-raft/merge j/jgroups-raft/merge r/tandem-raft/main u/tandem-unreplicated/merge
cell c16f 16 64B-fsync j/jgroups-raft/merge m/tandem-raft/merge r/tandem-raft/main
