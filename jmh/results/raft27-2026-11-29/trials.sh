#!/usr/bin/env bash
# raft27: follow26's trials.sh (jit25's / raft20's interleaved runner). Trees: base = main e64badda built in
# /tmp/raft27-base, bound = e64badda + vsync26's DeadlineBound (the core part of e42688fb, branch raft27-bound) built in
# /tmp/raft27-bound, new = this worktree (/work/wt-raft27). Base port 22000; the base tree's harness jar for every side.
# Usage: trials.sh OUTDIR BUDGET_S ENTRY...
#   ENTRY = label:system:clients:config:tree[:opt,opt...]
#   opts: w<N> = warm-up cap N s (default 30); eo=KEY=VALUE = --opt SYSTEM:engine-options=KEY=VALUE (new tree only);
#         any -Dkey=value / -Xfoo passed to every JVM.
# A trial is skipped when elapsed + its estimate would pass BUDGET_S.
set -u
out="$1"; budget="$2"; shift 2
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out/profile"
t0=$(date +%s)
echo "round start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients config tree opts <<<"$e"
  case "$tree" in base) repo=/tmp/raft27-base ;; bound) repo=/tmp/raft27-bound ;; new) repo=/work/wt-raft27 ;; *) echo "bad tree $tree"; exit 2 ;; esac
  extra=(--profile-window "$out/profile"); cap=30
  IFS=, read -ra olist <<<"${opts:-}"
  for o in "${olist[@]}"; do
    case "$o" in
      w[0-9]*) cap=${o#w} ;;
      eo=*) extra+=(--opt "$sys:engine-options=${o#eo=}") ;;
      -D*|-X*) extra+=("--jvm-opt=$o") ;;
    esac
  done
  est=$(( cap + 22 ))
  now=$(( $(date +%s) - t0 ))
  if (( now + est > budget )); then echo "$label skipped at ${now}s (budget)" >> "$out/load.txt"; continue; fi
  echo "$label start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /tmp/raft27-base/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$config" --clients "$clients" --warmup 10 --max-warmup "$cap" \
    --measure 8 --slowdown none --base-port 22000 --work-dir /var/tmp/raft27-peerbench --out "$out/$label" "${extra[@]}" > "$out/$label.log" 2>&1
  for f in "$out"/profile/run1-*; do [[ -e "$f" ]] && mv "$f" "$out/profile/$label-${f##*/}"; done
  echo "$label end $(date -u +%T) $(cat /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
