#!/usr/bin/env bash
# Lead, session 27: raft27's summary.py over a directory of this session's trials.sh layout (OUT/LABEL/results.csv and
# OUT/LABEL/profile/*threads.csv), labels r1.. m3 renamed r64-1.. for its tree medians. Usage: summarize.sh DIR CLIENTS
d=$(cd "$1" && pwd); n=$2; t=$(mktemp -d)
mkdir -p "$t/profile"
for r in "$d"/*/results.csv; do
  label=$(basename "$(dirname "$r")"); tree=${label%%[0-9]*}; k=${label#$tree}
  mkdir -p "$t/$tree$n-$k"; ln -s "$r" "$t/$tree$n-$k/results.csv"
  for p in "$d/$label"/profile/*threads.csv; do [[ -e $p ]] && ln -s "$p" "$t/profile/$tree$n-$k-$(basename "$p")"; done
done
sed -E "s/^([a-z]+)([0-9]+) /\\1$n-\\2 /" "$d/load.txt" > "$t/load.txt"
python3 "$(dirname "$0")/../raft27-2026-11-29/summary.py" "$t"
rm -rf "$t"
