# follow24: per trial of ab/ puts/s, p99, CPU/put (from the logs) and follower/leader thread CPU per put (window CSVs);
# medians per side and client count. Usage: summary.py DIR
import csv, glob, re, statistics, sys, collections
d = sys.argv[1]
rows = collections.defaultdict(list)
for log in sorted(glob.glob(f'{d}/*.log')):
    lab = log.split('/')[-1][:-4]
    line = next((l for l in open(log) if 'puts/s' in l), None)
    if not line: continue
    m = re.search(r'([\d,]+) puts/s.*p99 ([\d.]+) ms.*CPU ([\d.]+) us/op \(JIT ([\d.]+) %\)', line)
    puts, p99, cpu, jit = int(m[1].replace(',', '')), float(m[2]), float(m[3]), float(m[4])
    th = collections.defaultdict(list)
    for r in csv.DictReader(open(glob.glob(f'{d}/profile/{lab}-*threads.csv')[0])):
        role = r['jvm'].split('-')[-1]; name = re.sub(r'-r\d.*', '', r['thread'])
        if name in ('tandem-loop', 'tandem-exec', 'tandem-tcp'): th[(role, name[7:])].append(float(r['us_per_put']))
    f = lambda k: th.get(k, [])
    print(f"{lab:6} {puts:7,} puts/s p99 {p99:5.2f} ms CPU {cpu:5.1f} us/put JIT {jit:4.1f} % | follower loop {f(('FOLLOWER','loop'))} exec {f(('FOLLOWER','exec'))} tcp {f(('FOLLOWER','tcp'))} | leader loop {f(('LEADER','loop'))} exec {f(('LEADER','exec'))}")
    if not lab.startswith('j'): rows[lab[:3]].append((puts, p99, cpu, f(('FOLLOWER','loop')), f(('FOLLOWER','exec')), f(('FOLLOWER','tcp')), f(('LEADER','loop'))))
for k in sorted(rows):
    v = rows[k]; med = lambda i: statistics.median(x[i] for x in v); medl = lambda i: statistics.median(y for x in v for y in x[i])
    print(f"median {k} ({len(v)} trials): {med(0):,.0f} puts/s, p99 {med(1):.2f} ms, CPU {med(2):.1f} us/put, follower loop {medl(3):.2f} exec {medl(4):.2f} tcp {medl(5):.2f} us/put, leader loop {medl(6):.2f}")
