# Sums the chunked LargeMessageSimulationTest runs: python3 large-sum.py large-sim-from*.txt
import re, sys
tot = dict(seeds=0, failures=0, deliveries=0, large=0, bytes=0, cut=0, overlap=0, corrupt=0); ranges = []
for f in sys.argv[1:]:
    for l in open(f):
        m = re.search(r"vsync-large-messages: seeds=(\d+) \(from (\d+)\) failures=(\d+) shard deliveries=(\d+) large sent=\d+ large delivered=(\d+) \((\d+) bytes\) large transfers cut by a view change=(\d+) overlapping transfers=(\d+) corrupt=(\d+)", l)
        if not m: continue
        s, first, fa, d, ld, b, c, o, co = map(int, m.groups())
        ranges.append((first, first + s - 1)); tot['seeds'] += s; tot['failures'] += fa; tot['deliveries'] += d
        tot['large'] += ld; tot['bytes'] += b; tot['cut'] += c; tot['overlap'] += o; tot['corrupt'] += co
print("seed ranges:", sorted(ranges)); print(tot)
