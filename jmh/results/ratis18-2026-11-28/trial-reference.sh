#!/usr/bin/env bash
# Ratis' own way (ReferenceLoad: CounterServer-style servers with new RaftProperties(), CounterClient-style clients),
# the harness's JVM flags, 64 writers, LOAD seconds, the last MEASURED seconds measured by the client (CPU of all four
# JVMs from /proc). usage: trial-reference.sh OUT TAG BASE_PORT LOAD MEASURED VALUE_SIZE FSYNC io|async
set -u
out=$1; tag=$2; bp=$3; secs=$4; meas=$5; vs=$6; fsync=$7; mode=$8
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../../.." && pwd)"
JAR=$root/peers/ratis/target/peer-ratis.jar
J="$JAVA_HOME/bin/java -Xms1g -Xmx1g -XX:+UseParallelGC -XX:+AlwaysPreTouch --enable-native-access=ALL-UNNAMED"
d=$out/$tag; w=/var/tmp/ratis18-$tag; rm -rf $d $w; mkdir -p $d $w
pids=()
for i in 0 1 2; do
  $J -cp $JAR io.tandem.peers.ratis.ReferenceLoad server $i $bp $w/d$i $fsync > $d/s$i.log 2>&1 &
  pids+=($!)
done
for t in $(seq 1 200); do [[ $(grep -l READY $d/s*.log 2>/dev/null | wc -l) == 3 ]] && break; sleep 0.2; done
echo "$tag load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee $d/load-average.txt
$J -cp $JAR io.tandem.peers.ratis.ReferenceLoad client $bp 64 $secs $meas $vs $mode "${pids[@]}" > $d/client.log 2>&1
echo "$tag load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a $d/load-average.txt
kill "${pids[@]}" 2>/dev/null; wait
echo "$tag per second: $(grep -o 'puts=[0-9]*' $d/client.log | cut -d= -f2 | tr '\n' ' ')"
echo "RESULT $tag $(grep RESULT $d/client.log)"
rm -rf $w
