#!/usr/bin/env bash
# A/B of Copilot (copilot9): for each label=jar argument in order, one fresh 5-node cluster through the
# fail-slow harness, windows healthy / pilot +20 ms egress / healthy, 16 clients, fsync on, disk images
# on ext4 (/var/tmp), with the side scraper. An argument label=jar,protocol,scenario runs another engine or scenario.
set -u
out="$1"; shift
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p "$out"
/work/wt-copilot9/results/copilot9/scrape.sh "$out/scrape" & sp=$!
for arg in "$@"; do
  label="${arg%%=*}"; rest="${arg#*=}"; jar="${rest%%,*}"; proto=copilot; scen=n5-net
  if [[ "$rest" == *,* ]]; then proto="$(echo "$rest" | cut -d, -f2)"; scen="$(echo "$rest" | cut -d, -f3)"; fi
  echo "$label $(date +%s) $(uptime)" >> "$out/runs.txt"
  $J --enable-native-access=ALL-UNNAMED -Xmx512m -cp "$jar" io.tandem.bench.FailSlowBenchmark --protocol $proto --slow-target leader \
    --scenarios $scen --net-delay-ms 20 --warmup 20 --max-warmup 40 --settle 2 --duration 8 --runs 1 \
    --image-dir /var/tmp/c9-images --work-dir /var/tmp/c9-work --base-port 24000 --port-spacing 100 --out "$out/$label" > "$out/$label.log" 2>&1
  echo "$label-end $(date +%s) $(uptime)" >> "$out/runs.txt"
done
touch "$out/scrape/stop"; wait $sp
