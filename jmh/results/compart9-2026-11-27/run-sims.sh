#!/usr/bin/env bash
# Seeds for issue 21 session 13 (compart9): every deployment file of simbench/compartments/ (the write-only ones,
# whose clients-taking members run no replica, through their -reads twins), then classic 3 and 5 nodes.
# Usage: run-sims.sh [SEEDS_PER_FILE] [FILES...]; prints one summary line per file.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
seeds="${1:-200}"; shift || true
files=("$@")
if [ ${#files[@]} -eq 0 ]; then files=(simbench/compartments/*.conf); fi
for f in "${files[@]}"; do
  case "$(basename "$f")" in d-b2-u2.conf|d-g23-b2-u2.conf|a4-p10-grid24-r4-b2-u2.conf) continue ;; esac
  n=$(grep -v '^#' "$f" | grep -o 'n[0-9]*' | sed 's/n//' | sort -n | tail -1)
  start=$(date +%s)
  res=$(TANDEM_SKIP_BUILD=1 ./tandem sim --protocol multipaxos --nodes "$n" --deployment "$f" --seeds "$seeds" --max-failures 3 --no-minimize 2>&1 | tail -3 | tr '\n' ' ')
  echo "$(basename "$f") nodes=$n seeds=$seeds wall=$(( $(date +%s) - start ))s :: $res"
done
