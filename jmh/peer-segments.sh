#!/usr/bin/env bash
# Counts the TCP data segments the Tandem systems of the peer benchmark send, by hop, while a command runs:
#   jmh/peer-segments.sh LOW-HIGH OUT command...     e.g.
#   jmh/peer-segments.sh 28000-28999 /tmp/segs jmh/run-peers.sh --systems tandem-raft,tandem-raft-tls ... --base-port 28000
# Every 5 s it records `ss`'s data_segs_out of every TCP socket with an end in LOW-HIGH (OUT, one line per socket:
# time, local address, peer address, data segments sent so far), then prints per interval the rate of segments
# sent on client connections (requests: towards a client port; replies: from it) and on member links. A Tandem
# replica's member port is offset 0 and its client port offset 1 of its 20-port block (peers/tandem TandemSystem;
# blocks start at multiples of 20 when --base-port is one).
# With TCP_NODELAY and messages well under the MSS, one segment is one socket write, i.e. one flush, and with
# TLS one record. Divide by the puts/s the benchmark prints for the trial the interval falls in.
set -uo pipefail
[[ $# -ge 3 && $1 == *-* ]] || { echo "usage: $0 LOW-HIGH OUT command..." >&2; exit 2; }
low=${1%-*}; high=${1#*-}; out=$2; shift 2
: > "$out"
filter="( sport >= :$low and sport <= :$high ) or ( dport >= :$low and dport <= :$high )"
sample() {
  while :; do
    printf -v ts '%(%s)T' -1
    ss -tinH "$filter" | awk -v ts="$ts" 'NR % 2 == 1 { l = $4; p = $5; next }
        { for (i = 1; i <= NF; i++) if ($i ~ /^data_segs_out:/) print ts, l, p, substr($i, 15) }' >> "$out"
    sleep 5
  done
}
sample &
sampler=$!
"$@"
rc=$?
kill "$sampler"
wait "$sampler" 2>/dev/null
awk -v low="$low" -v high="$high" '
  function port(a) { sub(/.*:/, "", a); return a + 0 }
  { segs[$1, $2 " " $3] = $4; if (!($1 in seen)) { seen[$1] = 1; times[++n] = $1 } }
  END {
    print "interval start (epoch s), seconds, segments/s: requests replies member"
    for (i = 1; i < n; i++) {
      a = times[i]; b = times[i + 1]; req = rep = mem = 0
      for (k in segs) {
        split(k, parts, SUBSEP); if (parts[1] != b || !((a, parts[2]) in segs)) continue
        d = segs[k] - segs[a, parts[2]]; split(parts[2], ends, " "); lp = port(ends[1]); pp = port(ends[2])
        if (lp >= low && lp <= high && lp % 20 == 1) rep += d
        else if (pp >= low && pp <= high && pp % 20 == 1) req += d
        else mem += d
      }
      if (req + rep + mem > 0) printf "%d %d %.0f %.0f %.0f\n", a, b - a, req / (b - a), rep / (b - a), mem / (b - a)
    }
  }' "$out"
exit $rc
