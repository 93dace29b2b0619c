#!/usr/bin/env bash
# Side scraper for one bench invocation: every 3 s, every node's /metrics (ports 24200-24204) and the
# per-thread CPU ticks of every server JVM of this worktree's runs, into $1/<epoch>/.
out="$1"; mkdir -p "$out"
while [[ ! -f "$out/stop" ]]; do
  t=$(date +%s); d="$out/$t"; mkdir -p "$d"
  for i in 0 1 2 3 4 5; do curl -s -m 1 "http://127.0.0.1:$((24200+i))/metrics" > "$d/n$i.prom" 2>/dev/null || rm -f "$d/n$i.prom"; done
  for pid in $(pgrep -f -- "--metrics-port 242"); do
    port=$(tr '\0' ' ' < /proc/$pid/cmdline 2>/dev/null | grep -o -- '--metrics-port [0-9]*' | awk '{print $2}')
    for task in /proc/$pid/task/*; do
      [[ -r $task/stat ]] || continue
      # comm may hold spaces; fields after ") " : utime is field 14, stime 15 of the full line
      awk -v p=$pid -v port=$port '{ s=$0; i=index(s,"("); j=match(s,/\) [A-Z] /); comm=substr(s,i+1,j-i-1); gsub(/ /,"_",comm); split(substr(s,j+2),f," "); print p, port, comm, f[12]+f[13] }' $task/stat
    done
  done > "$d/threads.txt" 2>/dev/null
  sleep 3
done
