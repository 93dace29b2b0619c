#!/bin/bash
# vsync19b profile (outside bench): main 77c51415's A.jar, 3 members, ordered, 1 KiB, JFR with DebugNonSafepoints. Ports 31000-31999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
CP=${CP:-/tmp/vsync19b/A.jar}
tag=${1:-A}
out=/work/wt-vsync19b/jmh/results/vsync19b-2026-11-28
{
echo "== profile $tag $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 90 java -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -cp $CP io.tandem.bench.vsync.MulticastBenchmark --sizes 3 --payloads 1024 --systems tandem-ordered \
  --warmup 3 --measure 6 --base-port 31000 --thread-cpu true --jfr /tmp/vsync19b/prof-$tag 2>/dev/null | grep -E '^(tandem|jgroups)|^# '
echo "== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > $out/profile-$tag.txt 2>&1
