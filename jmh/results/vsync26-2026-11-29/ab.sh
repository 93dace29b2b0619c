#!/usr/bin/env bash
# vsync26: main b3ef2d8b (A, /tmp/vsync26-base) against the branch (B: PendingRequests' expiry bound; the benchmark's
# adaptive warm-up and JIT column) and JGroups 5.4 SEQUENCER (J, run from the branch's jar so that it prints the JIT
# column too; JGroups' code is the same in both jars), ordered multicast at the missed points: 1 KiB n = 2, 3 and
# 8 KiB n = 2-5. Part F: the fixed 2 s warm-up as in vsync25 and the lead's table, rounds A B J, J A B, B J A.
# Part W (interleaved with F's rounds): B and J with the adaptive warm-up (--warmup 2 --max-warmup 12: ends once C1/C2
# used <= 5 % of the JVM's CPU over 2 s and the rate stopped rising), 1 KiB n = 2, 3 and 8 KiB n = 2, rounds B J, J B.
# A time guard stops starting new JVMs after 640 s (the bench budget is 12 minutes).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/vsync26-base/jmh/target/benchmarks.jar
B=/work/wt-vsync26/jmh/target/benchmarks.jar
out=/work/wt-vsync26/jmh/results/vsync26-2026-11-29
start=$(date +%s)
i=0
point() { # label jar system sizes payload extra...
  local label=$1 jar=$2 sys=$3 sizes=$4 pay=$5; shift 5
  local port=$((23000 + (i % 2) * 1000)); i=$((i + 1))
  if (( $(date +%s) - start > 640 )); then echo "== skip $label $sizes $pay (time guard)"; return; fi
  timeout 300 java -cp $jar io.tandem.bench.vsync.MulticastBenchmark --sizes $sizes --payloads $pay --systems $sys \
     --warmup 2 --measure 4 "$@" --base-port $port 2>>$out/ab.err | grep -E '^(tandem|jgroups)' | sed "s/^/$label,/"
}
fixed() { # label jar system
  echo "== $1 $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  point $1 $2 $3 2,3 1024
  point $1 $2 $3 2,3,4,5 8192
}
adaptive() { # label jar system
  echo "== $1 $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  point $1 $2 $3 2,3 1024 --max-warmup 12
  point $1 $2 $3 2 8192 --max-warmup 12
}
r=0
for order in "A B J" "J A B" "B J A"; do
  for x in $order; do
    case $x in
      A) fixed A $A tandem-ordered ;;
      B) fixed B $B tandem-ordered ;;
      J) fixed J $B jgroups-sequencer ;;
    esac
  done
  case $r in
    0) adaptive BW $B tandem-ordered; adaptive JW $B jgroups-sequencer ;;
    1) adaptive JW $B jgroups-sequencer; adaptive BW $B tandem-ordered ;;
  esac
  r=$((r + 1))
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
