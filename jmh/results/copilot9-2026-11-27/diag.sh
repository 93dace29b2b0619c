#!/usr/bin/env bash
# Diagnostic run (copilot9): copilot (this branch's jar with the path counters) then multipaxos, healthy only,
# 5 nodes, 16 clients, fsync on, disk images on ext4 (/var/tmp), with the side scraper.
set -u
jar="$1"; out="$2"; shift 2
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"; uptime > "$out/load-start.txt"
/work/wt-copilot9/results/copilot9/scrape.sh "$out/scrape" & sp=$!
for proto in "$@"; do
  date +%s > "$out/$proto.start"; uptime >> "$out/load-start.txt"
  $J --enable-native-access=ALL-UNNAMED -Xmx512m -cp "$jar" io.tandem.bench.FailSlowBenchmark --protocol $proto --slow-target leader \
    --scenarios n5-healthy --warmup 20 --max-warmup 40 --settle 2 --duration 10 --runs 1 \
    --image-dir /var/tmp/c9-images --work-dir /var/tmp/c9-work --base-port 24000 --port-spacing 100 --out "$out/$proto" > "$out/$proto.log" 2>&1
  date +%s > "$out/$proto.end"
done
touch "$out/scrape/stop"; wait $sp; uptime > "$out/load-end.txt"
