#!/usr/bin/env bash
# Issue 22, lead session 27: the whole loopback table (n = 2-5 x 64 B, 1 KiB, 8 KiB, ordered) for the merge (N: main +
# vsync27's channel that sends the application's array as the command over virtual synchrony, raft27's quiet apply;
# the benchmark's warm-up: --warmup 2, then the peer harness' SteadyState rule over 2 s, the JIT at most 5 % of the JVM's
# CPU and the rate no longer rising, at most 20 s) and JGroups SEQUENCER (J), one invocation per system and round,
# 3 rounds, order alternating. Run inside `bench`.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
merge=/work/wt-merge27/jmh/target/benchmarks.jar
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
