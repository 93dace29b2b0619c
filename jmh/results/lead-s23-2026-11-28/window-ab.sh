#!/usr/bin/env bash
# Issue 22, vsync23's lead: the send window at 1 KiB. Ordered multicast at the benchmark's default window (256 at 1 KiB),
# at --window 512, and JGroups' SEQUENCER, n = 2 and 3, interleaved A W J / J W A / A W J; the merge's benchmarks.jar.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
jar=/work/wt-merge23/jmh/target/benchmarks.jar
i=0
run() { # label system extra...
  local label=$1 sys=$2; shift 2
  local port=$((20000 + (i % 3) * 300)); i=$((i + 1))
  echo "== $label $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 120 java -cp $jar io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024 --systems $sys \
     --warmup 2 --measure 4 --base-port $port "$@" 2>/dev/null | grep -E '^(tandem|jgroups)'
}
for order in "A W J" "J W A" "A W J"; do
  for x in $order; do
    case $x in
      A) run A tandem-ordered ;;
      W) run W512 tandem-ordered --window 512 ;;
      J) run J jgroups-sequencer ;;
    esac
  done
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
