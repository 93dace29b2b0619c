#!/bin/bash
# rdmc15 probe: A = main 4c321679 (/tmp/rdmc15/A.jar) vs W = this branch (frame kinds counted, MAX_PIPELINE 64,
# --window option; /tmp/rdmc15/W.jar) at the benchmark's window 16 (W16) and 64 (W64). Order A W16 W64 W64 W16 A,
# one JVM each: 64 KiB and 256 KiB at n = 2, 3 (--inflight 128 for every build). Raw one stream (A's jar) at 64 KiB
# at the start and end. Blocks of 1 MiB; 2 s warm-up, 1.5 s measured. Ports 27000-28999. Run through /work/tools/bench.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
start=$(date +%s)
echo "# load at start: $(uptime)"
j=0
run() { # label jar args...
  local label=$1 jar=$2; shift 2
  if (( $(date +%s) - start > 200 )); then echo "# skipped $label $* (time)"; return; fi
  java -Xmx6g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$jar" io.tandem.bench.vsync.LargeMessageBenchmark \
      --block 1048576 --warmup 2 --measure 1.5 --runs 1 "$@" --base-port $((27000 + 100 * (j % 19))) 2>&1 \
    | grep -v "INFO\|WARN\|^\s*at \|^run,\|OpenJDK\|Java HotSpot" | sed "s/^1,/$label,/; s/^# /# $label /"
  j=$((j + 1))
}
run raw /tmp/rdmc15/A.jar --sizes 2 --payloads 65536 --raw true --tandem false
for x in A W16 W64 W64 W16 A; do
  case $x in
    A) run A /tmp/rdmc15/A.jar --sizes 2,3 --payloads 65536,262144 --raw false --inflight 128 ;;
    W16) run W16 /tmp/rdmc15/W.jar --sizes 2,3 --payloads 65536,262144 --raw false --inflight 128 --window 16 --kinds true ;;
    W64) run W64 /tmp/rdmc15/W.jar --sizes 2,3 --payloads 65536,262144 --raw false --inflight 128 --window 64 --kinds true ;;
  esac
done
run raw /tmp/rdmc15/A.jar --sizes 2 --payloads 65536 --raw true --tandem false
echo "# elapsed $(( $(date +%s) - start )) s"
echo "# load at end: $(uptime)"
