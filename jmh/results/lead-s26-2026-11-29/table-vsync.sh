#!/usr/bin/env bash
# Issue 22, lead session 26: the whole loopback table (n = 2-5 x 64 B, 1 KiB, 8 KiB, ordered) for the merge (N: main +
# follow26's disk back-off; the first run, table-vsync-bound.txt, also had vsync26's expiry bound, left out after; the
# benchmark's warm-up now adaptive for both systems: --warmup 2, then until the JIT used
# <= 5 % of the JVM's CPU over 2 s and the rate stopped rising, at most 20 s) and JGroups SEQUENCER (J), one
# invocation per system and round, 3 rounds, order alternating. Run inside `bench`.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
merge=/work/wt-merge26/jmh/target/benchmarks.jar
i=0
run() { # label system
  local label=$1 sys=$2
  local port=$((20000 + (i % 3) * 300)); i=$((i + 1))
  echo "== $label $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 1200 java -cp $merge io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3,4,5 --payloads 64,1024,8192 --systems $sys \
     --warmup 2 --measure 4 --base-port $port 2>/dev/null | grep -E '^(tandem|jgroups)' | sed "s/^/$label,/"
}
for order in "N J" "J N" "N J"; do
  for x in $order; do
    case $x in
      N) run N tandem-ordered ;;
      J) run J jgroups-sequencer ;;
    esac
  done
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
