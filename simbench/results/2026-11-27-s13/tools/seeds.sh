#!/usr/bin/env bash
# The functional simulator must not change: 500 seeds of raft, multipaxos, copilot and virtual-synchrony with a jar,
#   tools/seeds.sh JAR LABEL   -> seeds-LABEL.txt (one line per protocol: its summary)
set -uo pipefail
jar=$1; label=$2
out="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/seeds-$label.txt"
: >"$out"
for p in raft multipaxos copilot virtual-synchrony; do
  t0=$(date +%s)
  /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar "$jar" sim --protocol $p --seeds 500 >/tmp/perfsim8-seeds-$label-$p.log 2>&1
  rc=$?
  echo "$p rc=$rc $(( $(date +%s)-t0 ))s: $(grep -E 'seeds=|failures|ops' /tmp/perfsim8-seeds-$label-$p.log | tail -3 | tr '\n' ' ')" >>"$out"
done
