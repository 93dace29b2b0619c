#!/usr/bin/env bash
# jit25: one /work/tools/bench call = several PeerBenchmark trials (one system, one run each, 3 replicas), interleaved
# between two built trees through the base tree's harness jar, base port 23000, the measured window's thread CPU
# (--profile-window). Template: raft20's trials.sh.
# Usage: trials.sh OUTDIR BUDGET_S ENTRY...
#   ENTRY = label:system:clients:config:tree[:opt,opt...]   tree: base (/tmp/jit25-base = main 35c59fcb) | new (/work/wt-jit25)
#   opts: jit = a JIT log per JVM (-Xlog:jit+compilation=debug,deoptimization=debug, uptime and UTC) and a JFR recording of
#         the JIT's events only (jit.jfc: jdk.Compilation with its duration, jdk.Deoptimization), cut to the window by the harness;
#         w<N> = warm-up cap N s (default 30); any -Dkey=value / -Xfoo passed to every JVM.
# A trial is skipped when elapsed + its estimate would pass BUDGET_S.
set -u
out="$1"; budget="$2"; shift 2
here=/work/wt-jit25
res=$here/jmh/results/jit25-2026-11-29
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out/profile"
t0=$(date +%s)
echo "round start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients config tree opts <<<"$e"
  case "$tree" in base) repo=/tmp/jit25-base ;; new) repo=$here ;; *) echo "bad tree $tree"; exit 2 ;; esac
  extra=(--profile-window "$out/profile"); cap=30
  IFS=, read -ra olist <<<"${opts:-}"
  for o in "${olist[@]}"; do
    case "$o" in
      jit) mkdir -p "$out/$label-jit"
           extra+=("--jvm-opt=-Xlog:jit+compilation=debug,deoptimization=debug:file=$out/$label-jit/jit-%p.log:uptime,utctime"
                   "--jvm-opt=-XX:StartFlightRecording=settings=$res/jit.jfc,filename=$out/$label-jit/all-%p.jfr") ;;
      w[0-9]*) cap=${o#w} ;;
      -D*|-X*) extra+=("--jvm-opt=$o") ;;
    esac
  done
  est=$(( cap + 22 ))
  now=$(( $(date +%s) - t0 ))
  if (( now + est > budget )); then echo "$label skipped at ${now}s (budget)" >> "$out/load.txt"; continue; fi
  echo "$label start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /tmp/jit25-base/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$config" --clients "$clients" --warmup 10 --max-warmup "$cap" \
    --measure 8 --slowdown none --base-port 23000 --work-dir /var/tmp/jit25-peerbench --out "$out/$label" "${extra[@]}" > "$out/$label.log" 2>&1
  for f in "$out"/profile/run1-*; do [[ -e "$f" ]] && mv "$f" "$out/profile/$label-${f##*/}"; done
  echo "$label end $(date -u +%T) $(cat /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
