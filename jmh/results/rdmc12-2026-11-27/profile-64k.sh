#!/bin/bash
# rdmc12: where the CPU of a 64 KiB message goes (through bench). For each point: one JVM running
# LargeMessageBenchmark (5 s warm-up, 8 s measured, --inflight 64), JFR (1 ms execution samples + JDK 25's
# CPU-time samples) from t = 6 s for 5 s, per-thread CPU (/proc/PID/task/*/schedstat, ns on CPU) and
# perf stat (task-clock, syscalls) over the same 5 s. Usage: profile-64k.sh JAR LABEL [n ...]. Ports 27000-27999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
jar=$1; label=$2; shift 2
sizes=${*:-2 3}
out=/tmp/rdmc12/prof-$label
mkdir -p $out
echo "# load at start: $(uptime)"
snap() { # pid file
  for t in /proc/$1/task/*; do
    printf '%s\t%s\n' "$(cat $t/comm 2>/dev/null)" "$(cut -d' ' -f1 $t/schedstat 2>/dev/null)"
  done > $2
}
j=0
for n in $sizes; do
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
      -XX:StartFlightRecording=delay=6s,duration=5s,filename=$out/n$n.jfr,settings=/tmp/rdmc12/prof.jfc \
      -cp $jar io.tandem.bench.vsync.LargeMessageBenchmark --block 1048576 --warmup 5 --measure 8 --runs 1 \
      --base-port $((27000 + 100 * j)) --sizes $n --payloads 65536 --raw false --inflight 64 > $out/n$n.txt 2>&1 &
  pid=$!
  j=$((j + 1))
  sleep 6
  snap $pid $out/n$n.threads0
  perf stat -x, -e task-clock,raw_syscalls:sys_enter -p $pid -- sleep 5 2> $out/n$n.perf
  snap $pid $out/n$n.threads1
  wait $pid
  grep -E '^1,' $out/n$n.txt
  cat $out/n$n.perf | grep -v '^#'
done
echo "# load at end: $(uptime)"
