#!/bin/bash
# vsync27: JFR profile (Java samples every 2 ms, CPU-time samples, allocation samples) of the given jar at 1 KiB, 2 members,
# tandem-ordered. usage: profile.sh JAR TAG. Run inside `bench`.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
out=/work/wt-vsync27/jmh/results/vsync27-2026-11-29
jar=$1; tag=$2
{
echo "== profile $tag n=2 p=1024 $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 90 java -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -Dtandem.bench.jfrPeriodMs=2 -cp $jar io.tandem.bench.vsync.MulticastBenchmark \
    --sizes 2 --payloads 1024 --systems tandem-ordered --warmup 3 --max-warmup 12 --measure 4 --base-port 21900 \
    --jfr /tmp/vsync27-prof-$tag 2>>$out/profile-$tag.err | grep -E '^(tandem|jgroups)|^# |^ '
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/profile-$tag.txt 2>&1
