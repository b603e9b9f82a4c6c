import sys,statistics as st
ev=[]
for line in open(sys.argv[1]):
    p=line.split()
    if len(p)<3: continue
    t=float(p[1].rstrip(':'))*1e6; e=p[2].rstrip(':').split(':')[-1]
    ev.append((t,e))
segs={k:[] for k in ['pre','verify','wait','post','total','gap']}
i=0;last_ret=None
while i<len(ev):
    if ev[i][1]=='sub':
        t0=ev[i][0]; j=i+1; sends=[]; pe=px=rx=None
        while j<len(ev) and ev[j][1]!='subret__return':
            e=ev[j][1]
            if e=='sys_enter_sendto': sends.append(ev[j][0])
            elif e=='sys_enter_poll' and pe is None: pe=ev[j][0]
            elif e=='sys_exit_poll': px=ev[j][0]
            elif e=='sys_exit_recvfrom': rx=ev[j][0]
            j+=1
        if j<len(ev) and len(sends)>=2 and pe and rx:
            t1=ev[j][0]
            segs['pre'].append(sends[0]-t0); segs['verify'].append(sends[-1]-sends[0])
            segs['wait'].append(rx-sends[-1]); segs['post'].append(t1-rx); segs['total'].append(t1-t0)
            if last_ret: segs['gap'].append(t0-last_ret)
            last_ret=t1
        i=j+1
    else: i+=1
for k,v in segs.items():
    v.sort(); n=len(v)
    if n: print(k, n, 'p50=%.0f p10=%.0f p90=%.0f mean=%.0f'%(v[n//2],v[n//10],v[9*n//10],sum(v)/n))
