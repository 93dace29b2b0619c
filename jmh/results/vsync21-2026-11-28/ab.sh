#!/bin/bash
# vsync21 step 3, one bench run: A = main c7c59051's benchmarks.jar (/tmp/vsync21-base); B1 = this branch's transport-tcp
# classes ahead of it (region writes up to the direct buffer, shared encoded frames included, written by the pushing
# loop; pushes cut to the direct buffer); B2 = B1 plus a shared encoded frame for a lone direct target (no heap body);
# J = JGroups SEQUENCER (legacy stack, settle step). Each: 1 KiB and 8 KiB at 2 and 3 members in one invocation;
# rounds A B1 B2 J / J B2 B1 A (ab.txt). The final run (ab-final.txt, ORDER='A C J C A J C A' SUFFIX=-final): C = the
# branch's transport-tcp classes (shared encoded region frames within DirectSend.MAX_FRAME_BYTES written by the pushing
# loop; a lone direct target gets a shared frame too; no chunk cap, large frames as on main). Ports 27000-29999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync21/jmh/results/vsync21-2026-11-28
A=/tmp/vsync21-base/benchmarks.jar
i=0
run() { # label
  local label=$1
  local port=$((27000 + (i % 3) * 1000)); i=$((i + 1))
  local cp=$A sys=tandem-ordered
  case $label in B1) cp=/tmp/vsync21/B1/tcp:$A ;; B2) cp=/tmp/vsync21/B2/tcp:$A ;; C) cp=/tmp/vsync21/C/tcp:$A ;; J) sys=jgroups-sequencer ;; esac
  echo "== $label $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 100 java -cp $cp io.tandem.bench.vsync.MulticastBenchmark --sizes 2,3 --payloads 1024,8192 --systems $sys --jgroups-stack legacy \
     --warmup 2 --measure 3 --base-port $port --thread-cpu true 2>>$out/ab.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
for l in ${ORDER:-A B1 B2 J J B2 B1 A}; do run $l; done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/ab${SUFFIX}.txt 2>&1
