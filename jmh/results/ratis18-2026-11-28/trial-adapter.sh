#!/usr/bin/env bash
# One Ratis adapter trial by hand (the harness passes no --opt): 3 replica JVMs + the load JVM with the harness's JVM
# flags, LOAD seconds of 64-writer closed-loop load, the last MEASURED seconds measured (rows of the driver's timeline,
# CPU of all four JVMs from /proc between the rows that open and close the window).
# usage: trial-adapter.sh OUT TAG BASE_PORT LOAD MEASURED VALUE_SIZE FSYNC [--opt k=v ...]
set -u
out=$1; tag=$2; bp=$3; secs=$4; meas=$5; vs=$6; fsync=$7; shift 7
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../../.." && pwd)"
JAR=$root/peers/ratis/target/peer-ratis.jar
J="$JAVA_HOME/bin/java -Xms1g -Xmx1g -XX:+UseParallelGC -XX:+AlwaysPreTouch"
d=$out/$tag; w=/var/tmp/ratis18-$tag; rm -rf $d $w; mkdir -p $d $w
pids=()
for i in 0 1 2; do
  $J -jar $JAR replica --system ratis --id $i --base-port $bp --data $w/d$i --fsync=$fsync "$@" > $d/r$i.log 2>&1 &
  pids+=($!)
done
for t in $(seq 1 200); do [[ $(cat $w/d*.role 2>/dev/null | grep -c LEADER) == 1 ]] && break; sleep 0.2; done
echo "$tag load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee $d/load-average.txt
$J -jar $JAR load --system ratis --base-port $bp --clients 64 --value-size $vs --seconds $secs --timeline $d/load.csv "$@" > $d/load.log 2>&1 &
lp=$!
ticks() { local s=0; for p in "${pids[@]}" $lp; do s=$((s + $(awk '{print $14+$15}' /proc/$p/stat))); done; echo $s; }
rows() { [[ -f $d/load.csv ]] && tail -n +2 $d/load.csv | wc -l || echo 0; }
from=$((secs - meas))
while (( $(rows) < from )); do sleep 0.05; done; c0=$(ticks)
while (( $(rows) < secs )); do sleep 0.05; done; c1=$(ticks)
wait $lp
echo "$tag load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a $d/load-average.txt
kill "${pids[@]}" 2>/dev/null; wait
echo "$tag per second: $(awk -F, 'NR>1{printf "%s ", $3}' $d/load.csv)"
echo "RESULT $tag $($JAVA_HOME/bin/java -cp $JAR $here/Window.java $d/load.csv $from $secs $((c1 - c0)))"
rm -rf $w
