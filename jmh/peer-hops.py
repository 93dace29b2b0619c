#!/usr/bin/env python3
"""Per-hop latency of the Tandem systems of the peer benchmark, from kernel timestamps of loopback segments.

  capture: python3 jmh/peer-hops.py capture LOW-HIGH OUT DELAY SECONDS     (as root; stop it with kill)
  analyse: python3 jmh/peer-hops.py analyse OUT/<port>-<epoch>.txt ...

`capture` watches the port range of a `jmh/run-peers.sh ... --base-port LOW` run. When a trial's replicas
start listening it waits DELAY seconds (put it inside the warm-up, so that the measured window is not
disturbed), then records SECONDS of every TCP segment with a payload on loopback with an end in the range
(an AF_PACKET socket, kernel receive timestamps; no tcpdump needed) into OUT/<first port>-<epoch>.txt
(lines: ns, source port, destination port, payload bytes, first payload byte; 23 is a TLS record), and the
`ss -tanp` table at the end of the capture into OUT/<first port>-ss.txt, which names the JVM of every port.

`analyse` finds the leader (the client port that receives the most requests; a replica's member port is
offset 0 and its client port offset 1 of its 20-port block, peers/tandem TandemSystem) and prints, per hop,
the delay from the latest segment that can have caused a segment to that segment (p10 / p50 / p90, µs):

  request -> AppendEntries   the leader from a client request to its replication message (leader in)
  AppendEntries -> ack       a follower's turn, including its log append and fsync
  ack -> reply               the leader from a follower's acknowledgement to the reply (leader out)
  reply -> request           the load JVM from a reply to its next request (client)

With one closed-loop client every put is one request, one AppendEntries per follower, one acknowledgement
each and one reply, so the delays are exact. With more clients a segment's latest possible cause is not
always its cause, so read them as lower bounds and compare like with like (TLS against plaintext at the same
load). Each hop includes the receiver's decode (with TLS: one record unwrapped) and the sender's encode
(one record wrapped), the thread hand-offs in between and the wait for a core.
"""
import bisect, collections, os, re, socket, struct, subprocess, sys, time

SO_RCVBUFFORCE, SO_TIMESTAMPNS, PACKET_HOST = 33, 35, 0


def listening(low, high):
    ports = set()
    for line in subprocess.run(['ss', '-tlnH'], capture_output=True, text=True).stdout.splitlines():
        try:
            p = int(line.split()[3].rsplit(':', 1)[1])
        except (IndexError, ValueError):
            continue
        if low <= p <= high and p % 20 == 0:
            ports.add(p)
    return ports


def record(low, high, seconds):
    # ETH_P_IP on lo sees each segment once, as received (PACKET_HOST), with the kernel's timestamp.
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.ntohs(0x0800))
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind(('lo', 0))
    s.settimeout(0.2)
    rows, end = [], time.time() + seconds
    while time.time() < end:
        try:
            data, anc, _, addr = s.recvmsg(256, 256)
        except socket.timeout:
            continue
        if addr[2] != PACKET_HOST or data[14 + 9] != 6:
            continue
        ip = data[14:]
        ihl = (ip[0] & 15) * 4
        total = struct.unpack('!H', ip[2:4])[0]
        tcp = ip[ihl:]
        sport, dport = struct.unpack('!HH', tcp[:4])
        doff = (tcp[12] >> 4) * 4
        n = total - ihl - doff
        if n <= 0 or not (low <= sport <= high or low <= dport <= high):
            continue
        ts = 0
        for _, kind, d in anc:
            if kind == SO_TIMESTAMPNS:
                sec, ns = struct.unpack('qq', d[:16])
                ts = sec * 10**9 + ns
        rows.append(f'{ts} {sport} {dport} {n} {tcp[doff] if len(tcp) > doff else -1}')
    s.close()
    return rows


def capture(port_range, out, delay, seconds):
    low, high = map(int, port_range.split('-'))
    os.makedirs(out, exist_ok=True)
    seen = set()
    while True:
        new = listening(low, high) - seen
        if new:
            first = min(new)
            time.sleep(delay)
            rows = record(low, high, seconds)
            with open(f'{out}/{first}-ss.txt', 'w') as f:
                f.write(subprocess.run(['ss', '-tanpH'], capture_output=True, text=True).stdout)
            with open(f'{out}/{first}-{int(time.time())}.txt', 'w') as f:
                f.write('\n'.join(rows) + '\n')
            seen |= listening(low, high) | new
        time.sleep(1)


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(p * len(v)))] if v else float('nan')


def analyse(path):
    directory, name = os.path.split(path)
    first = name.split('-')[0]
    pid_of = {}
    for line in open(os.path.join(directory, f'{first}-ss.txt')):
        m = re.search(r':(\d+)\s+\S+:(?:\d+|\*)\s+users:\(\("java",pid=(\d+)', line)
        if m:
            pid_of[int(m.group(1))] = int(m.group(2))
    rows = [tuple(map(int, l.split())) for l in open(path) if l.strip()]
    if not rows:
        print(f'{path}: no segments')
        return
    requests = collections.Counter(r[2] for r in rows if r[2] % 20 == 1)
    client_port = requests.most_common(1)[0][0]
    leader = pid_of.get(client_port)
    ev = collections.defaultdict(list)
    for ts, sport, dport, _, _ in rows:
        if dport == client_port:
            ev['req'].append(ts)
        elif sport == client_port:
            ev['rep'].append(ts)
        elif sport % 20 != 1 and dport % 20 != 1:
            a, b = pid_of.get(sport), pid_of.get(dport)
            if a == leader:
                ev['ae'].append(ts)
                ev['ae', b].append(ts)
            elif b == leader:
                ev['ack'].append(ts)
                ev['ack', a].append(ts)
    for k in ev:
        ev[k].sort()

    def since_latest(causes, effects):
        out = []
        for t in effects:
            i = bisect.bisect_left(causes, t) - 1
            if i >= 0:
                out.append((t - causes[i]) / 1000)
        return out

    tls = sum(1 for r in rows if r[4] == 23) > len(rows) / 2
    span = (rows[-1][0] - rows[0][0]) / 1e9
    print(f'{path}: {"TLS" if tls else "plaintext"}, {span:.1f} s; segments/s: requests {len(ev["req"]) / span:.0f}, '
          f'replies {len(ev["rep"]) / span:.0f}, AppendEntries {len(ev["ae"]) / span:.0f}, acks {len(ev["ack"]) / span:.0f}')
    hops = [('request -> AppendEntries', since_latest(ev['req'], ev['ae'])),
            ('ack -> reply', since_latest(ev['ack'], ev['rep'])),
            ('reply -> request', since_latest(ev['rep'], ev['req']))]
    for follower in sorted(k[1] for k in ev if isinstance(k, tuple) and k[0] == 'ae' and k[1] is not None):
        hops.append((f'AppendEntries -> ack (pid {follower})', since_latest(ev['ae', follower], ev['ack', follower])))
    for what, v in hops:
        print(f'  {what:34s} n={len(v):7d}  p10 {pct(v, .1):6.0f}  p50 {pct(v, .5):6.0f}  p90 {pct(v, .9):6.0f} µs')


if __name__ == '__main__':
    if len(sys.argv) == 6 and sys.argv[1] == 'capture':
        capture(sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]))
    elif len(sys.argv) >= 3 and sys.argv[1] == 'analyse':
        for p in sys.argv[2:]:
            analyse(p)
    else:
        sys.exit(__doc__)
