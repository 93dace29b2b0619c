#!/bin/bash
# rdmc13: CPU and syscalls per 64 KiB message, A against B (through bench). One JVM per (build, n):
# LargeMessageBenchmark --payloads 65536 --inflight 64, 3 s warm-up, 5 s measured; perf stat (task-clock, syscalls)
# over 3 s from t = 4 s; messages in that window estimated from the point's messages/s. Order A B B A (n = 2), then
# B A (n = 5). Ports 24000-24999.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
echo "# load at start: $(uptime)"
j=0
point() { # build n
  local x=$1 n=$2 out=/tmp/rdmc13/cpm-$1-$2-$j.txt
  java -Xmx4g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp /tmp/rdmc13/$x.jar io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 3 --measure 5 --runs 1 --base-port $((24000 + 100 * j)) --sizes $n --payloads 65536 --raw false --inflight 64 > $out 2>&1 &
  local pid=$!
  j=$((j + 1))
  sleep 4
  perf stat -x, -e task-clock,raw_syscalls:sys_enter -p $pid -- sleep 3 2> $out.perf
  wait $pid
  local line=$(grep -E '^1,tandem' $out) counts=$(grep -E '^# tandem' $out)
  local msgs=$(echo $line | cut -d, -f7) secs=$(echo $line | cut -d, -f8)
  local clock=$(grep task-clock $out.perf | cut -d, -f1) sys=$(grep sys_enter $out.perf | cut -d, -f1)
  python3 -c "
r=$msgs/$secs; m=r*3
print('$x n=$n: %s; %.0f msgs/s; cores %.2f; CPU %.0f us/msg; syscalls %.1f/msg; %s' % ('$line', r, $clock/3000, $clock*1000/m, $sys/m, '''$counts'''))"
}
point A 2; point B 2; point B 2; point A 2
point B 5; point A 5
echo "# load at end: $(uptime)"
