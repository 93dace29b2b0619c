#!/usr/bin/env bash
# vsync25: main 35c59fcb (A) against the branch (B, reused direct frames for large region pushes) and JGroups 5.4 SEQUENCER
# (J, main's jar), ordered multicast, 1 KiB at n = 2, 3 and 8 KiB at n = 2-5. One JVM per system and round, 3 rounds with
# the order rotated (A B J, J A B, B J A); a time guard stops starting new JVMs after 420 s (the bench budget).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/vsync25-base/jmh/target/benchmarks.jar
B=/work/wt-vsync25/jmh/target/benchmarks.jar
out=/work/wt-vsync25/jmh/results/vsync25-2026-11-29
start=$(date +%s)
i=0
run() { # label jar system
  local label=$1 jar=$2 sys=$3
  local port=$((21000 + (i % 3) * 300)); i=$((i + 1))
  if (( $(date +%s) - start > 420 )); then echo "== skip $label (time guard)"; return; fi
  echo "== $label $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  for pts in "2,3 1024" "2,3,4,5 8192"; do
    set -- $pts
    timeout 300 java -cp $jar io.tandem.bench.vsync.MulticastBenchmark --sizes $1 --payloads $2 --systems $sys \
       --warmup 2 --measure 4 --base-port $port 2>>$out/ab.err | grep -E '^(tandem|jgroups)' | sed "s/^/$label,/"
  done
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
