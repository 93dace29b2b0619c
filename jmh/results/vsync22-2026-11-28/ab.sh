#!/bin/bash
# vsync22 step 3, one bench run: A = main f3bf0f16's benchmarks.jar (/tmp/vsync22-base); B = this branch's TcpTransport
# classes (e5a6d459: a lone target's region frame above DirectSend.MAX_FRAME_BYTES encoded into a pooled direct buffer)
# ahead of it; J = JGroups SEQUENCER (legacy stack, settle step). Each: 1 KiB and 8 KiB at 2 and 3 members in one
# invocation, --warmup 2 --measure 3 --thread-cpu true. Ports 27000-29999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync22/jmh/results/vsync22-2026-11-28
A=/tmp/vsync22-base/jmh/target/benchmarks.jar
i=0
run() { # label
  local label=$1
  local port=$((27000 + (i % 3) * 1000)); i=$((i + 1))
  local cp=$A sys=tandem-ordered
  case $label in B) cp=/tmp/vsync22-B:$A ;; C) cp=/tmp/vsync22-C:$A ;; J) sys=jgroups-sequencer ;; esac
  echo "== $label $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 100 java -cp $cp io.tandem.bench.vsync.MulticastBenchmark --sizes ${SIZES:-2,3} --payloads 1024,8192 --systems $sys --jgroups-stack legacy \
     --warmup 2 --measure 3 --base-port $port --thread-cpu true 2>>$out/ab.err | grep -E '^(tandem|jgroups)|^# [tj].*cores'
}
{
for l in ${ORDER:-A B J B A J A B J}; do run $l; done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/ab${SUFFIX}.txt 2>&1
