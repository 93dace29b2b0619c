#!/usr/bin/env bash
# Issue 25's deciding cells on the session-24 merge (tree "merge"): 3 interleaved rounds per cell with the order rotated,
# one trial per system and round; 64 B values, fsync off; 64 and 16 clients. Tandem's systems run the hash-map state
# machine (the harness' default from session 24, as every peer adapter); "rb" is Tandem's Raft with the server's B+-tree.
d=$(cd "$(dirname "$0")" && pwd)
cell() { # dir clients config label/system[/KEY=VALUE]...
  local dir=$1 c=$2 cfg=$3; shift 3
  local -a e=()
  for s in "$@"; do IFS=/ read -r l sys opt <<<"$s"; e+=("$l:$sys:$c:$cfg:merge${opt:+:$opt}"); done
  local n=${#e[@]}
  for round in 1 2 3; do
    local -a r=()
    for ((i = 0; i < n; i++)); do local x=${e[$(( (i + (round - 1) * 2) % n ))]}; r+=("${x%%:*}$round:${x#*:}"); done
    "$d"/trials.sh $d/$dir "${r[@]}"
  done
}
cell c64 64 64B-nofsync r/tandem-raft j/jgroups-raft rb/tandem-raft/state-machine=btree u/tandem-unreplicated pb/tandem-multipaxos
cell c16 16 64B-nofsync r/tandem-raft j/jgroups-raft
