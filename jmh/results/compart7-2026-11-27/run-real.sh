#!/usr/bin/env bash
# issue 21, session 12: real multi-process runs, per role (RoleCostRunner). Usage: run-real.sh STEP... (classic, proxy, batchers)
# Ports 23000-23008 (peers), 23300-23308 (clients), 23600-23608 (metrics). No fsync (the paper keeps state in memory).
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
export TANDEM_SKIP_BUILD=1
CLIENTS="${CLIENTS:-128}" WARMUP="${WARMUP:-15}" MEASURE="${MEASURE:-10}"
CSV="${CSV:-$root/results/compart7/real-runs.csv}"
JAVA="$(bin/find-jdk.sh)/bin/java"
for step in "$@"; do
  case "$step" in
    classic) n=3; dep=() ;;
    proxy) n=9; dep=(--deployment simbench/compartments/p2-r2.conf) ;;
    batchers) n=9; dep=(--deployment simbench/compartments/p2-r2-batchers.conf) ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
  d=/tmp/compart7-cluster-$step
  echo "== $step $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  ./tandem cluster --dir "$d" --nodes $n --base-port 23000 --port-step 300 --protocol multipaxos --no-fsync --fresh "${dep[@]}" > "$d.log" 2>&1 &
  cpid=$!
  for i in $(seq 1 180); do grep -q "^Ready" "$d.log" 2>/dev/null && break; kill -0 $cpid 2>/dev/null || break; sleep 0.5; done
  if grep -q "^Ready" "$d.log"; then
    grep "^Ready" "$d.log"
    leader=$(grep -o "n[0-9]* leads" "$d.log" | head -1 | cut -d' ' -f1)
    "$JAVA" -cp jmh/target/benchmarks.jar io.tandem.bench.RoleCostRunner --dir "$d" --label "$step" --clients "$CLIENTS" --warmup "$WARMUP" --measure "$MEASURE" --csv "$CSV" ${leader:+--leader $leader}
  else
    echo "cluster did not start:"; tail -20 "$d.log"
  fi
  ./tandem cluster --dir "$d" --stop > /dev/null 2>&1
  wait $cpid 2>/dev/null
done
