#!/bin/bash
# vsync22: JFR profiles of A (main) and B (the lone-target encoded frame) at 8 KiB, 2 members, one bench run.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync22/jmh/results/vsync22-2026-11-28
A=/tmp/vsync22-base/jmh/target/benchmarks.jar
{
for tag in A B; do
cp=$A; [ $tag = B ] && cp=/tmp/vsync22-B:$A
echo "== profile $tag n=2 p=8192 $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 60 java -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -cp $cp io.tandem.bench.vsync.MulticastBenchmark --sizes 2 --payloads 8192 --systems tandem-ordered \
    --warmup 2 --measure 4 --base-port 27000 --thread-cpu true --jfr /tmp/vsync22-prof-$tag 2>>$out/profile.err | grep -E '^(tandem|jgroups)|^# '
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/profile.txt 2>&1
