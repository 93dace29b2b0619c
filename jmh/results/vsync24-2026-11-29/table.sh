#!/usr/bin/env bash
# Issue 22, vsync24: the whole ordered matrix against JGroups in one bench call, on the branch's benchmark defaults
# (no --window: MulticastBenchmark.windowFor's W per payload). n = 2,3,4,5 x 64 B, 1 KiB, 8 KiB; per round one JVM that
# runs, at every point, Tandem's ordered multicast and JGroups 5.4 SEQUENCER (legacy stack, settle step) back to back;
# the order of the two alternates by round (T J, J T, T J, ...). warmup 2 s, measure 4 s per point. Run under /work/tools/bench.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
jar=${JAR:-/tmp/vsync24-jar2/benchmarks.jar}
rounds=${ROUNDS:-3}
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2 == 1)); then systems=tandem-ordered,jgroups-sequencer; else systems=jgroups-sequencer,tandem-ordered; fi
  port=$((21000 + ((r - 1) % 2) * 1000))
  echo "== round $r ($systems) $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 900 java -cp $jar io.tandem.bench.vsync.MulticastBenchmark --sizes ${SIZES:-2,3,4,5} --payloads ${PAYLOADS:-64,1024,8192} \
     --systems $systems --warmup 2 --measure 4 --base-port $port 2>table-r$r.err | grep -E '^(tandem|jgroups|#)' | sed "s/^/r$r,/"
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
