#!/usr/bin/env bash
# Issue 22, vsync24: the send window W of the ordered multicast at 1 KiB (256, 512, 1024, 2048) and 8 KiB (64, 128, 256),
# n = 2 and 3, next to JGroups' SEQUENCER, in one bench call; 3 rounds, the order rotated (forward, reverse, shifted).
# Every item is a separate JVM (MulticastBenchmark, warmup 2 s, measure 4 s per point). Run under /work/tools/bench.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
jar=${JAR:-/tmp/vsync24-jar/benchmarks.jar}
i=0
run() { # label payloads system extra...
  local label=$1 payloads=$2 sys=$3; shift 3
  local port=$((21000 + (i % 10) * 100)); i=$((i + 1))
  echo "== $label $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 180 java -cp $jar io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads $payloads --systems $sys \
     --warmup 2 --measure 4 --base-port $port "$@" 2>/dev/null | grep -E '^(tandem|jgroups)' | sed "s/^/$label,/"
}
item() {
  case $1 in
    W256) run W256 1024,8192 tandem-ordered --window 256 ;;
    W512) run W512 1024 tandem-ordered --window 512 ;;
    W1024) run W1024 1024 tandem-ordered --window 1024 ;;
    W2048) run W2048 1024 tandem-ordered --window 2048 ;;
    W64) run W64 8192 tandem-ordered --window 64 ;;
    W128) run W128 8192 tandem-ordered --window 128 ;;
    J) run J 1024,8192 jgroups-sequencer ;;
  esac
}
for order in "W256 W512 W1024 W2048 W64 W128 J" "J W128 W64 W2048 W1024 W512 W256" "W1024 W2048 W64 J W256 W512 W128"; do
  for x in $order; do item $x; done
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
