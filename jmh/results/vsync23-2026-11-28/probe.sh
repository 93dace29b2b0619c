#!/bin/bash
# vsync23 step 1, one bench run: (a) the probe build (P, this branch's probe commit: counters of what ends a send pass,
# deferred counter pushes, loop parks, benchmark senders blocked on their in-flight permits), one JVM per point;
# (b) main's benchmarks.jar (A) at the default window (256 at 1 KiB) and at --window 512 / 1024, W5 A A W5 W10.
# All 1 KiB, ordered, --warmup 2 --measure 3 --thread-cpu true. Ports 23000-23999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync23/jmh/results/vsync23-2026-11-28
A=/tmp/vsync23-base/jmh/target/benchmarks.jar
P=/tmp/vsync23-probe/core:/tmp/vsync23-probe/protocols:/tmp/vsync23-probe/jmh:$A
i=0
run() { # label jar sizes extra...
  local label=$1 jar=$2 sizes=$3; shift 3
  local port=$((23000 + (i % 3) * 300)); i=$((i + 1))
  echo "== $label $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 100 java -cp $jar io.tandem.bench.vsync.MulticastBenchmark --sizes $sizes --payloads 1024 --systems tandem-ordered \
     --warmup 2 --measure 3 --base-port $port --thread-cpu true "$@" 2>>$out/probe.err | grep -E '^(tandem|jgroups)|^# '
}
{
run P2 $P 2
run P3 $P 3
run W5 $A 2,3 --window 512
run A $A 2,3
run A $A 2,3
run W5 $A 2,3 --window 512
run W10 $A 2,3 --window 1024
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/probe.txt 2>&1
