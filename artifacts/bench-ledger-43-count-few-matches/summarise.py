import json,re
D='/work/main/artifacts/bench-ledger-43-count-few-matches/'
out=[]
rows={};order=[]
for v in ['cte','few2']:
  for i in [1,2]:
    d=json.load(open(f'{D}backlog-{v}-{i}.json'))
    for b in d['benchmarks']:
      n=b['name'].replace('/manual_time','')
      if n not in rows: rows[n]={}; order.append(n)
      rows[n][f'{v}{i}']=(b['real_time'],b['p50_us'])
out.append("BM_Ledger_CountBacklog (20,000 entities, 10,000 expired and unswept), us per count, mean/p50:")
out.append("before (fb2dc2a) 1, 2 | after 1, 2, alternated before-1, after-1, before-2, after-2")
for n in order:
  r=rows[n]; f=lambda k: f"{r[k][0]:8.1f}/{r[k][1]:8.1f}"
  out.append(f"{n:34s} {f('cte1')} {f('cte2')} | {f('few21')} {f('few22')}")
rows={};order=[]
for v in ['cte','few2']:
  for i in [1,2,3]:
    d=json.load(open(f'{D}existing-{v}-{i}.json'))
    for b in d['benchmarks']:
      n=re.sub(r'/min_warmup_time:[0-9.]+/manual_time','',b['name'])
      if n not in rows: rows[n]={}; order.append(n)
      rows[n][f'{v}{i}']=b['real_time']
out.append("")
out.append("Count rows of the read populations (no expired entities) at N <= 10^5, us per count (mean):")
out.append("before (fb2dc2a) 1..3 | after 1..3, alternated before, after, three times; medians")
for n in order:
  r=rows[n]
  b=sorted(r[f'cte{i}'] for i in [1,2,3]); w=sorted(r[f'few2{i}'] for i in [1,2,3])
  out.append(f"{n:42s} "+" ".join(f"{r[f'cte{i}']:7.1f}" for i in [1,2,3])+" | "+" ".join(f"{r[f'few2{i}']:7.1f}" for i in [1,2,3])+f"   {b[1]:.1f} -> {w[1]:.1f} ({w[1]/b[1]:.2f}x)")
open(D+'summary.txt','w').write("\n".join(out)+"\n")
print("\n".join(out))
