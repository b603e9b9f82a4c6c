import sys,re,statistics as st
# parse perf script output: comm pid [cpu] time: event: args
rx=re.compile(r'^\s*(\S.*?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$')
ev=[]
for line in open(sys.argv[1]):
    m=rx.match(line)
    if not m: continue
    comm,pid,cpu,t,e,a=m.groups()
    ev.append((float(t)*1e6,int(pid),comm,int(cpu),e,a))
client=[p for (_,p,c,_,_,_) in ev if c.startswith('veil_bench')]
cp=max(set(client),key=client.count)
# backend: postgres pid with most fdatasync
fd=[p for (_,p,c,_,e,_) in ev if c=='postgres' and e.endswith('sys_enter_fdatasync')]
bp=max(set(fd),key=fd.count)
print('client',cp,'backend',bp)
# cycles: client sendto with len>0x200 starts a cycle
cyc=[];cur=None
for (t,p,c,cpu,e,a) in ev:
    if p==cp and e.endswith('sys_enter_sendto'):
        ln=int(re.search(r'len: (0x[0-9a-f]+)',a).group(1),16)
        if ln>600:
            if cur: cyc.append(cur)
            cur={'s1':t,'len':ln,'sends':[t],'bpre':0.0,'cpre':0.0}
        elif cur: cur['sends'].append(t)
    if cur is None: continue
    if p==bp and e.endswith('sys_exit_recvfrom') and 'r1' not in cur and not a.startswith('0xfff'): cur['r1']=t
    if p==bp and e.endswith('sys_enter_fdatasync'): cur.setdefault('f0',t)
    if p==bp and e.endswith('sys_exit_fdatasync'): cur['f1']=t
    if p==bp and e.endswith('sys_enter_sendto') and 'f1' in cur: cur.setdefault('w',t)
    if p==cp and e.endswith('sys_exit_recvfrom') and 'w' in cur: cur.setdefault('rc',t)
    if e=='sched:sched_switch':
        m=re.search(r'prev_pid=(\d+) .*prev_state=(\S+) ==> next_comm=(.*) next_pid=(\d+)',a)
        pp,state,nc,np=int(m.group(1)),m.group(2),m.group(3),int(m.group(4))
        if state=='R' and pp==bp: cur['bpre']+=1
        if state=='R' and pp==cp: cur['cpre']+=1
ok=[c for c in cyc if all(k in c for k in ('r1','f0','f1','w','rc')) and len(c['sends'])>=1]
print('cycles',len(cyc),'complete',len(ok))
segs={}
def add(k,v): segs.setdefault(k,[]).append(v)
for c in ok:
    s2=c["sends"][-1]
    add('s1->backend recv',c['r1']-c['s1'])
    add('s1->s2 (client verify)',s2-c['s1'])
    add('backend recv->fdatasync (exec+commit prep)',c['f0']-c['r1'])
    add('sync sent->fdatasync',c['f0']-s2)
    add('fdatasync',c['f1']-c['f0'])
    add('fdatasync->reply send',c['w']-c['f1'])
    add('reply send->client recv',c['rc']-c['w'])
    add('s1->client recv',c['rc']-c['s1'])
    add('backend preempted',c['bpre'])
    add('client preempted',c['cpre'])
for k,v in segs.items():
    v.sort(); n=len(v)
    print('%-45s p10=%7.1f p50=%7.1f p90=%7.1f mean=%7.1f'%(k,v[n//10],v[n//2],v[9*n//10],sum(v)/n))
