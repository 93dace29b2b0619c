#!/usr/bin/env bash
# fsync21 call 1: the fsync probe, then the base's fsync-on profile at 64 and 16 clients (JFR: CPU-time samples, every fsync and write).
d=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
echo "probe start $(date -u +%T) $(cat /proc/loadavg)" > $d/fsyncprobe/probe2.txt
java $d/fsyncprobe/FsyncProbe.java /var/tmp/fsync21-probe 400 4096 >> $d/fsyncprobe/probe2.txt 2>&1
echo "probe end $(date -u +%T) $(cat /proc/loadavg)" >> $d/fsyncprobe/probe2.txt
$d/trials.sh $d/p1 130 p64:tandem-raft:64:64B-fsync:base:jfr p16:tandem-raft:16:64B-fsync:base:jfr
