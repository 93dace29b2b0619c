#!/usr/bin/env bash
# mp19: one /work/tools/bench call = several peer-harness trials (one system, one run each), ports 21000+.
# Usage: trials.sh OUTDIR BUDGET_S ENTRY...   ENTRY = label:system:clients:config:tree
#   tree: base = main 77c51415 built in /tmp/mp19-base | new = /work/wt-mp19 (branch mp19)
# Every trial uses main's harness jar (/tmp/mp19-base/jmh/target/benchmarks.jar), so only the servers differ;
# every JVM writes a GC log (-Xlog:gc, one line per pause with the heap before/after).
set -u
out="$1"; budget="$2"; shift 2
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out/gc"
t0=$(date +%s)
echo "round start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients config tree <<<"$e"
  case "$tree" in base) repo=/tmp/mp19-base ;; new) repo=/work/wt-mp19 ;; *) echo "bad tree $tree"; exit 2 ;; esac
  now=$(( $(date +%s) - t0 ))
  if (( now + ${EST:-45} > budget )); then echo "$label skipped at ${now}s (budget)" >> "$out/load.txt"; continue; fi
  echo "$label start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /tmp/mp19-base/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$config" --clients "$clients" --warmup ${WARMUP:-10} --max-warmup ${MAXWARM:-16} \
    --measure ${MEASURE:-8} --slowdown none --base-port 21000 --work-dir /var/tmp/mp19-peerbench --out "$out/$label" \
    --profile-window "$out/profile" "--jvm-opt=-Xlog:gc:file=$out/gc/$label-%%p.log" > "$out/$label.log" 2>&1
  for f in "$out"/profile/run1-*; do [[ -e "$f" ]] && mv "$f" "$out/profile/$label-${f##*/}"; done
  echo "$label end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) :: $(tail -n1 "$out/$label/results.csv" 2>/dev/null)" >> "$out/load.txt"
done
echo "round end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
