#!/bin/bash
# vsync25: JFR profiles (Java samples every 2 ms + JDK 25 CPU-time samples) of the given jar at 8 KiB and 1 KiB, 2 members.
# usage: profile.sh JAR TAG
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync25/jmh/results/vsync25-2026-11-29
jar=$1; tag=$2
{
for p in 8192 1024; do
echo "== profile $tag n=2 p=$p $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 60 nice -n 0 java -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -Dtandem.bench.jfrPeriodMs=2 -cp $jar io.tandem.bench.vsync.MulticastBenchmark \
    --sizes 2 --payloads $p --systems tandem-ordered --warmup 3 --measure 4 --base-port 21000 --thread-cpu true \
    --jfr /tmp/vsync25-prof-$tag 2>>$out/profile-$tag.err | grep -E '^(tandem|jgroups)|^# |^ '
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/profile-$tag.txt 2>&1
