import sys, statistics, collections
# label,system,n,payload,msg/s,...  -> medians per (label, n, payload) and ratio to J
d = collections.defaultdict(list)
for f in sys.argv[1:]:
    for line in open(f):
        p = line.strip().split(',')
        if len(p) >= 5 and p[4].isdigit():
            d[(p[0], int(p[2]), int(p[3]))].append(int(p[4]))
keys = sorted(d, key=lambda k: (k[2], k[1], k[0]))
for k in keys:
    j = d.get(('J', k[1], k[2]))
    med = statistics.median(d[k])
    jm = statistics.median(j) if j else 0
    r = med / jm if jm else float("inf")
    print(f"payload {k[2]:5d} n {k[1]} {k[0]:6s} median {med:9.0f}  x JGroups {r:4.2f}  runs {d[k]}")
