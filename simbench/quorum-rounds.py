#!/usr/bin/env python3
# One commit quorum round of Raft sampled from a cost table's disk.fsync and net.oneway (no CPU, no queues):
# the k-th fastest of the leader's sync and each live follower's round trip + sync. Explains the fail-stop
# rows of docs/perfsim.md section 2. Usage: simbench/quorum-rounds.py TABLE...
import random, bisect, sys
def parse(s):
    pts=[tuple(map(float,p.split(':'))) for p in s.split(',')]
    return pts
def sample(pts,r):
    u=r.random()
    for i in range(1,len(pts)):
        if u<=pts[i][0]:
            q0,v0=pts[i-1];q1,v1=pts[i]
            return v0+(u-q0)/(q1-q0)*(v1-v0)
    return pts[-1][1]
def props(f):
    d={}
    for l in open(f):
        if '=' in l and not l.startswith('#'):
            k,v=l.strip().split('=',1); d[k]=v
    return d
for f in sys.argv[1:]:
    d=props(f); D=parse(d['disk.fsync']); N=parse(d['net.oneway'])
    r=random.Random(1); n=200000
    res={}
    for name,(nodes,alive) in {'3/healthy':(3,3),'3/1 lost':(3,2),'5/healthy':(5,5),'5/2 lost':(5,3)}.items():
        need=nodes//2+1
        xs=[]
        for _ in range(n):
            t=[sample(D,r)]+[sample(N,r)+sample(D,r)+sample(N,r) for _ in range(alive-1)]
            t.sort(); xs.append(t[need-1])
        xs.sort(); res[name]=(sum(xs)/n, xs[int(.99*n)])
    print(f)
    for k,(m,p) in res.items(): print(f"  {k:10s} mean {m/1e3:7.1f} us  p99 {p/1e3:7.1f} us")
    print(f"  3 nodes: mean {res['3/1 lost'][0]/res['3/healthy'][0]*100:.0f}%  p99 {res['3/1 lost'][1]/res['3/healthy'][1]*100:.0f}%;  5 nodes: mean {res['5/2 lost'][0]/res['5/healthy'][0]*100:.0f}% p99 {res['5/2 lost'][1]/res['5/healthy'][1]*100:.0f}%")
