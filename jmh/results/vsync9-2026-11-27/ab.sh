#!/bin/bash
# One interleaved round of the vsync9 A/B: $1 = round (1-3), $2 = order (AB or BA).
# A = main before vsync8 (/tmp/vsync8/base.jar), B = vsync9's build (merge12 with vsync8) at window 64,
# J = JGroups SEQUENCER (A's jar), W = B with --window 256 at 2-3 members, 1 KiB and 8 KiB.
# Ports: round r uses 22000+(r-1)*330 .. +310 (80 ports per system run, 40 for W).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
A=/tmp/vsync8/base.jar; B=/tmp/vsync9/new.jar
out=/work/wt-vsync9/jmh/results/vsync9-2026-11-27
r=$1; order=$2
b=$((22000 + (r-1)*330))
run() { # label jar system port [extra args...]
  local label=$1 jar=$2 sys=$3 port=$4; shift 4
  echo "== $label round $r $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -cp $jar io.tandem.bench.vsync.MulticastBenchmark --payloads 1024,8192 --systems $sys \
     --warmup 2 --measure 4 --base-port $port --thread-cpu true "$@" 2>/dev/null | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
if [ "$order" = AB ]; then run A $A tandem-ordered $b --sizes 2,3,4,5; run B $B tandem-ordered $((b+90)) --sizes 2,3,4,5;
else run B $B tandem-ordered $((b+90)) --sizes 2,3,4,5; run A $A tandem-ordered $b --sizes 2,3,4,5; fi
run J $A jgroups-sequencer $((b+180)) --sizes 2,3,4,5
run W $B tandem-ordered $((b+270)) --sizes 2,3 --window 256
echo "== end round $r $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee $out/ab-round$r.txt
