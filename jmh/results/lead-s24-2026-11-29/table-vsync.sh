#!/usr/bin/env bash
# Issue 22, lead session 24: the whole loopback table (n = 2-5 x 64 B, 1 KiB, 8 KiB, ordered) for main's default window
# (M: main d4813d3d's benchmarks.jar, windowFor's old rule), the merge's (N: the new rule) and JGroups SEQUENCER (J,
# main's jar), one invocation per system and round, 3 rounds with the order rotated.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
main=/tmp/lead24-base/jmh/target/benchmarks.jar
merge=/work/wt-merge24/jmh/target/benchmarks.jar
i=0
run() { # label jar system
  local label=$1 jar=$2 sys=$3
  local port=$((20000 + (i % 3) * 300)); i=$((i + 1))
  echo "== $label $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 600 java -cp $jar io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3,4,5 --payloads 64,1024,8192 --systems $sys \
     --warmup 2 --measure 4 --base-port $port 2>/dev/null | grep -E '^(tandem|jgroups)' | sed "s/^/$label,/"
}
for order in "M N J" "J M N" "N J M"; do
  for x in $order; do
    case $x in
      M) run M $main tandem-ordered ;;
      N) run N $merge tandem-ordered ;;
      J) run J $main jgroups-sequencer ;;
    esac
  done
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
