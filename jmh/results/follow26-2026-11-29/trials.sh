#!/usr/bin/env bash
# follow26: jit25's trials.sh (raft20's interleaved runner) with base = main b3ef2d8b built in /tmp/follow26-base,
# new = this worktree (/work/wt-follow26), base port 21000, the base tree's harness jar for both sides.
# Usage: trials.sh OUTDIR BUDGET_S ENTRY...
#   ENTRY = label:system:clients:config:tree[:opt,opt...]   tree: base | new
#   opts: jit = a JIT log per JVM (-Xlog:jit+compilation=debug,deoptimization=debug, uptime and UTC);
#         jfr = continuous JFR with CPU-time samples every 2 ms (cut to the window by the harness);
#         w<N> = warm-up cap N s (default 30); any -Dkey=value / -Xfoo passed to every JVM.
# A trial is skipped when elapsed + its estimate would pass BUDGET_S.
set -u
out="$1"; budget="$2"; shift 2
here=/work/wt-follow26
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out/profile"
t0=$(date +%s)
echo "round start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients config tree opts <<<"$e"
  case "$tree" in base) repo=/tmp/follow26-base ;; new) repo=$here ;; *) echo "bad tree $tree"; exit 2 ;; esac
  extra=(--profile-window "$out/profile"); cap=30
  IFS=, read -ra olist <<<"${opts:-}"
  for o in "${olist[@]}"; do
    case "$o" in
      jit) mkdir -p "$out/$label-jit"
           extra+=("--jvm-opt=-Xlog:jit+compilation=debug,deoptimization=debug:file=$out/$label-jit/jit-%p.log:uptime,utctime") ;;
      jfr) extra+=("--jvm-opt=-XX:StartFlightRecording=settings=profile,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=2ms") ;;
      w[0-9]*) cap=${o#w} ;;
      -D*|-X*) extra+=("--jvm-opt=$o") ;;
    esac
  done
  est=$(( cap + 22 ))
  now=$(( $(date +%s) - t0 ))
  if (( now + est > budget )); then echo "$label skipped at ${now}s (budget)" >> "$out/load.txt"; continue; fi
  echo "$label start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /tmp/follow26-base/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$config" --clients "$clients" --warmup 10 --max-warmup "$cap" \
    --measure 8 --slowdown none --base-port 21000 --work-dir /var/tmp/follow26-peerbench --out "$out/$label" "${extra[@]}" > "$out/$label.log" 2>&1
  for f in "$out"/profile/run1-*; do [[ -e "$f" ]] && mv "$f" "$out/profile/$label-${f##*/}"; done
  echo "$label end $(date -u +%T) $(cat /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
