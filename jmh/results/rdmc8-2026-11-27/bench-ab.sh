#!/bin/bash
# A/B of large-message bandwidth in one invocation (run it through /work/tools/bench):
#   A = before.jar (one RDMC transfer per sender at a time), B = after.jar (pipelined transfers).
# For each payload: the raw points (1 stream, n-1 streams at once) from B's JVM, then the Tandem points of A and B,
# A first for even-numbered payloads, B first for odd ones; "reverse" as $1 visits the payloads the other way round.
# Stops starting new points after 270 s (the 5-minute limit of one bench run). Base port 24000 (helper rdmc8's range).
cd /work/wt-rdmc8
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
payloads="65536 262144 1048576 4194304 16777216"
[[ "$1" == reverse ]] && payloads="16777216 4194304 1048576 262144 65536"
run=${2:-1}
common=(--sizes 2,3,4,5 --block 1048576 --warmup 1 --measure 2 --runs 1 --inflight 4)
start=$(date +%s)
echo "# load at start: $(uptime)"
echo "# $(uname -r), $(grep -m1 'model name' /proc/cpuinfo)"
bench() { # label jar args...
  local label=$1 jar=$2; shift 2
  if (( $(date +%s) - start > 270 )); then echo "# skipped $label $* (time)"; return; fi
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$jar" io.tandem.bench.vsync.LargeMessageBenchmark "${common[@]}" "$@" 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^#\|^run," | sed "s/^1,/$run,$label:/"
}
i=0
for p in $payloads; do
  port=$((24000 + (i % 4) * 240))
  bench B /tmp/rdmc8-after.jar --payloads $p --tandem false --base-port $port
  if (( i % 2 == 0 )); then
    bench A /tmp/rdmc8-before.jar --payloads $p --raw false --base-port $((port + 80))
    bench B /tmp/rdmc8-after.jar --payloads $p --raw false --base-port $((port + 160))
  else
    bench B /tmp/rdmc8-after.jar --payloads $p --raw false --base-port $((port + 80))
    bench A /tmp/rdmc8-before.jar --payloads $p --raw false --base-port $((port + 160))
  fi
  i=$((i + 1))
done
if [[ "$3" == profile ]] && (( $(date +%s) - start < 230 )); then
  # A CPU profile of B at n = 3, 4 MiB (JFR, 6 s measured): where the copies go. Its MB/s line is not in the table.
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
    -XX:StartFlightRecording=filename=/tmp/rdmc8-profile-n3-4m.jfr,settings=profile -cp /tmp/rdmc8-after.jar \
    io.tandem.bench.vsync.LargeMessageBenchmark --sizes 3 --payloads 4194304 --block 1048576 --warmup 1 --measure 6 --runs 1 --inflight 4 --raw false --base-port 24960 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^run," | sed "s/^1,/profile,B:/"
fi
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
