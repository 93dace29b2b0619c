#!/usr/bin/env bash
# Lead, session 27: one peer-harness trial per ENTRY, each in its own `bench` call (helpers' trials interleave between
# them), the harness default adaptive warm-up (10 s minimum, up to 60 s), 8 s measured, per-thread CPU (with kernel time)
# of the window in OUT/LABEL/profile.
# Usage: trials.sh OUTDIR ENTRY...   ENTRY = label:system:clients:config:tree[:KEY=VALUE] (a replica --opt for that system)
#   tree: main = /work/wt-merge26 (main e64badda, built); merge = /work/wt-merge27 (main + this session's branches)
#   raft = /work/wt-raft27 (raft27 alone); vsync = /work/wt-vsync27 (vsync27 alone)
# Every trial uses the merge's harness jar, so only the servers differ.
set -u
out="$1"; shift
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
for e in "$@"; do
  IFS=: read -r label sys clients config tree opt <<<"$e"
  extra=(); [[ -n "${opt:-}" ]] && extra=(--opt "$sys:$opt")
  case "$tree" in main) repo=/work/wt-merge26 ;; merge) repo=/work/wt-merge27 ;; raft) repo=/work/wt-raft27 ;; vsync) repo=/work/wt-vsync27 ;; *) echo "bad tree $tree"; exit 2 ;; esac
  /work/tools/bench bash -c "echo \"$label start \$(date -u +%T) load \$(cut -d' ' -f1-3 /proc/loadavg) steal \$(vmstat 1 2 | tail -1 | awk '{print \$17}')\" >> '$out/load.txt'
  $java --enable-native-access=ALL-UNNAMED -Xmx512m -cp /work/wt-merge27/jmh/target/benchmarks.jar io.tandem.bench.peers.PeerBenchmark \
    --repo '$repo' --systems '$sys' --runs 1 --configs '$config' --clients '$clients' --warmup 10 \
    --measure 8 --slowdown none ${extra[*]:-} --base-port 20000 --work-dir /var/tmp/lead27-peerbench --out '$out/$label' --profile-window '$out/$label/profile' > '$out/$label.log' 2>&1
  echo \"$label end \$(date -u +%T) load \$(cut -d' ' -f1-3 /proc/loadavg) :: \$(grep -m1 'puts/s' '$out/$label.log')\" >> '$out/load.txt'" 2>>"$out/bench.log"
done
