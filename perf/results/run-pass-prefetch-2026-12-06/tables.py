import json,sys,glob,gzip,collections
# python3 tables.py DIR BASE,OTHER,... [PEERS_OF]: rk_bench_family -b reduce_by_key, NVBench cold CPU mean (us; every call waits for its run count), per run and build; ratios of the fastest runs to BASE's, and of PEERS_OF's (default: the last build named) to each peer.
def load(f):
    d=json.load(gzip.open(f) if f.endswith('.gz') else open(f)); out={}
    for b in d['benchmarks']:
        for st in b['states']:
            if st.get('is_skipped'): continue
            ax={a['name']:a['value'] for a in st['axis_values']}
            for s in st['summaries']:
                if s['tag']=='nv/cold/time/cpu/mean':
                    v=[x for x in s['data'] if x['name']=='value'][0]['value']
                    out[(ax['RunLength'],ax['Impl'])]=float(v)*1e6
    return out
runs=collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1]+'/*-r*.json*')):
    runs[f.split('/')[-1].split('-r')[0]].append(load(f))
names=sys.argv[2].split(',')
base=names[0]
ref=sys.argv[3] if len(sys.argv)>3 else names[-1]
lens=['1','2','8','8+3','100','1000','1000000','mix']
peers=['cub','thrust::reduce_by_key','probe']
def best(n,k,impl):
    xs=[r[(k,impl)] for r in runs[n] if (k,impl) in r]
    return min(xs) if xs else None
print('| runs of | '+' | '.join(names)+' | CUB | Thrust | probe | '+' | '.join(n+' / '+base for n in names[1:])+' | '+ref+' / CUB | '+ref+' / Thrust | '+ref+' / probe |')
print('| --- '*(2*len(names)+6)+'|')
for k in lens:
    cells=[' / '.join('%.1f'%r[(k,'rk::reduce_by_key')] for r in runs[n] if (k,'rk::reduce_by_key') in r) for n in names]
    pv={p:[r[(k,p)] for n in names for r in runs[n] if (k,p) in r] for p in peers}
    pcell=[' / '.join('%.1f'%x for x in pv[p]) for p in peers]
    rat=['%.3f'%(best(n,k,'rk::reduce_by_key')/best(base,k,'rk::reduce_by_key')) for n in names[1:]]
    last=best(ref,k,'rk::reduce_by_key')
    pr=['%.3f'%(last/min(pv[p])) if pv[p] else '' for p in peers]
    print('| '+' | '.join([k]+cells+pcell+rat+pr)+' |')
