#!/usr/bin/env bash
# compart12 (issue 21, session 16): real multi-process runs, per role, on the current engine (io.tandem.bench.RoleCostRunner,
# as compart7's jmh/results/compart7-2026-11-27/run-real.sh, in this helper's port range). Each step is DEPLOYMENT:CLIENTS,
# DEPLOYMENT one of classic (3 nodes, every role on each), proxy (simbench/compartments/p2-r2.conf, 9 members),
# batchers (p2-r2-batchers.conf). A 1-client step gives the leader loop's fixed CPU per second (heartbeats, timers), so the
# per-command part under load is (loaded - idle) / rate.  Usage: run-real.sh STEP...   e.g. classic:128 classic:1 proxy:128
# Ports 22000-22008 (peers), 22300-22308 (clients), 22600-22608 (metrics). No fsync (the paper keeps state in memory).
set -u
root="$(cd "$(dirname "$0")/../../.." && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
cd "$root"
export TANDEM_SKIP_BUILD=1
WARMUP="${WARMUP:-15}" MEASURE="${MEASURE:-10}"
CSV="${CSV:-$here/real-runs.csv}"
JAVA="$(bin/find-jdk.sh)/bin/java"
for arg in "$@"; do
  step=${arg%%:*}; clients=${arg#*:}
  case "$step" in
    classic) n=3; dep=() ;;
    proxy) n=9; dep=(--deployment simbench/compartments/p2-r2.conf) ;;
    batchers) n=9; dep=(--deployment simbench/compartments/p2-r2-batchers.conf) ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
  d=/tmp/compart12-cluster-$step
  echo "== $step clients=$clients $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  ./tandem cluster --dir "$d" --nodes $n --base-port 22000 --port-step 300 --protocol multipaxos --no-fsync --fresh "${dep[@]}" > "$d.log" 2>&1 &
  cpid=$!
  for i in $(seq 1 180); do grep -q "^Ready" "$d.log" 2>/dev/null && break; kill -0 $cpid 2>/dev/null || break; sleep 0.5; done
  if grep -q "^Ready" "$d.log"; then
    leader=$(grep -o "n[0-9]* leads" "$d.log" | head -1 | cut -d' ' -f1)
    "$JAVA" -cp jmh/target/benchmarks.jar io.tandem.bench.RoleCostRunner --dir "$d" --label "$step-c$clients" --clients "$clients" \
        --warmup "$WARMUP" --measure "$MEASURE" --csv "$CSV" ${leader:+--leader $leader}
  else
    echo "cluster did not start:"; tail -20 "$d.log"
  fi
  ./tandem cluster --dir "$d" --stop > /dev/null 2>&1
  wait $cpid 2>/dev/null
  echo "   end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
done
