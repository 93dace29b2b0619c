#!/usr/bin/env bash
# vsync27: main e64badda (A, built in /tmp/vsync27-base) against the branch (B: a channel over virtual synchrony sends
# the application's array as the command, no name copied in front of it) and JGroups 5.4 SEQUENCER (J, main's jar),
# ordered multicast, 1 KiB and 8 KiB at n = 2, 3, the benchmark's default adaptive warm-up (--warmup 2, up to 20 s).
# One JVM per system and round (--sizes 2,3 --payloads 1024,8192: four points), 3 rounds, the order rotated (A B J,
# J A B, B J A); a time guard stops starting new JVMs after 560 s (the bench budget). Run inside `bench`.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/vsync27-base/jmh/target/benchmarks.jar
B=/work/wt-vsync27/jmh/target/benchmarks.jar
out=/work/wt-vsync27/jmh/results/vsync27-2026-11-29
start=$(date +%s)
i=0
run() { # label jar system
  local label=$1 jar=$2 sys=$3
  local port=$((21000 + (i % 3) * 300)); i=$((i + 1))
  if (( $(date +%s) - start > 560 )); then echo "== skip $label (time guard)"; return; fi
  echo "== $label $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 300 java -cp $jar io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024,8192 --systems $sys \
     --warmup 2 --measure 4 --base-port $port 2>>$out/ab.err | grep -E '^(tandem|jgroups)' | sed "s/^/$label,/"
}
for order in "A B J" "J A B" "B J A"; do
  for x in $order; do
    case $x in
      A) run A $A tandem-ordered ;;
      B) run B $B tandem-ordered ;;
      J) run J $A jgroups-sequencer ;;
    esac
  done
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
