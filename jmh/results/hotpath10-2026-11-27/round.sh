#!/usr/bin/env bash
# hotpath10: one /work/tools/bench call = several PeerBenchmark trials, one system and one run each, 64 B values,
# adaptive warm-up WARMUP..MAXWARM s (env), MEASURE s measured (env, default 6), base port 26000, the measured window's
# thread CPU (--profile-window). A trial is skipped when elapsed + its estimate would pass BUDGET seconds.
# Usage: round.sh OUTDIR BUDGET ENTRY...   ENTRY: label:system:clients:config:tree[:jfr[:jvmopt]]   tree: base|new
#   jvmopt: one more option for every JVM of the trial (e.g. -Dtandem.raft.coalesce=1024); jfr field may be empty
#   base = /tmp/hp10-base (main 7dbed94's jars), new = /work/wt-hotpath10; the harness jar is always this branch's.
#   jfr: every JVM also keeps a continuous JFR recording (CPU-time samples every 2 ms, allocation), cut to the window.
set -u
out="$1"; budget="$2"; shift 2
here=/work/wt-hotpath10
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
cd "$here"
t0=$(date +%s)
echo "round start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
for e in "$@"; do
  IFS=: read -r label sys clients cfg tree jfr jvmopt <<<"$e"
  case "$tree" in base) repo=/tmp/hp10-base ;; *) repo=$here ;; esac
  case "$jfr" in jfr) est=${ESTJFR:-45} ;; *) est=${EST:-35} ;; esac
  now=$(( $(date +%s) - t0 ))
  if (( now + est > budget )); then echo "$label skipped at ${now}s (budget)" >> "$out/load.txt"; continue; fi
  extra=(--profile-window "$out/profile")
  [[ -n "$jvmopt" ]] && extra+=("--jvm-opt=$jvmopt")
  if [[ "$jfr" == jfr ]]; then
    extra+=("--jvm-opt=-XX:StartFlightRecording=settings=profile,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=2ms")
  fi
  echo "$label start $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo "$repo" --systems "$sys" --runs 1 --configs "$cfg" --clients "$clients" --warmup ${WARMUP:-8} --max-warmup ${MAXWARM:-20} --measure ${MEASURE:-6} \
    --slowdown none --base-port 26000 --work-dir /var/tmp/hp10-peerbench --out "$out/$label" "${extra[@]}" > "$out/$label.log" 2>&1
  for f in "$out"/profile/run1-*; do [[ -e "$f" ]] && mv "$f" "$out/profile/$label-${f##*/}"; done
  echo "$label end $(date -u +%T) $(cat /proc/loadavg) :: $(grep -m1 'puts/s' "$out/$label.log")" >> "$out/load.txt"
done
echo "round end $(date -u +%T) $(cat /proc/loadavg)" >> "$out/load.txt"
