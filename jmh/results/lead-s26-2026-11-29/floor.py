# Lead s25: per trial of a cell, throughput, mean latency, clients / mean latency (Little's law: a closed loop's rate), the CPU
# cores all JVMs used, and the kernel's share of the replicas' CPU (from profile/*-threads.csv).
# Usage: floor.py CELLDIR...
import csv, glob, os, re, statistics, sys
for cell in sys.argv[1:]:
    print(f"== {cell}")
    for f in sorted(glob.glob(f"{cell}/*/results.csv")):
        label = os.path.basename(os.path.dirname(f))
        for r in csv.DictReader(open(f)):
            thr = float(r['throughput']); mean = float(r['mean_us']); cpu = float(r['cpu_us_per_op']); clients = None
            k = t = 0.0
            for p in glob.glob(f"{os.path.dirname(f)}/profile/*threads.csv"):
                for row in csv.DictReader(open(p)):
                    if row['jvm'] == 'load': continue
                    t += float(row['us_per_put']); k += float(row.get('kernel_us_per_put') or 'nan')
            print(f"  {label:3s} {r['system']:20s} {thr:9,.0f} puts/s  mean {mean/1000:5.2f} ms  p50 {float(r['p50_us'])/1000:5.2f}  cores {thr*cpu/1e6:4.2f}  "
                  f"replicas {t:5.1f} us/put (kernel {100*k/t if t else float('nan'):3.0f} %)  JIT {float(r['jit_pct_of_cpu'] or 0):4.1f} %")
