import json,sys,glob,gzip,collections
# python3 tables.py DIR BASE,OTHER,...: rk::device's NVBench cold GPU mean (us) per run, each build against BASE (fastest runs), the last against the CSR probe of BASE's runs.
def load(f):
    d=json.load(gzip.open(f) if f.endswith('.gz') else open(f)); out={}
    for b in d['benchmarks']:
        for st in b['states']:
            if st.get('is_skipped'): continue
            ax={a['name']:a['value'] for a in st['axis_values']}
            for s in st['summaries']:
                if s['tag']=='nv/cold/time/gpu/mean':
                    v=[x for x in s['data'] if x['name']=='value'][0]['value']
                    out[(ax['T'],ax['Segments'],ax['Impl'])]=float(v)*1e6
    return out
runs=collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1]+'/*-r*.json*')):
    name=f.split('/')[-1].split('-r')[0]
    try: runs[name].append(load(f))
    except Exception as e: print(f,e)
names=sys.argv[2].split(',')
base=names[0]
probe={k[:2]:v for r in runs[base] for k,v in r.items() if k[2]=='CSR probe'}
keys=sorted({k[:2] for r in runs[base] for k in r if k[2]=='rk::device'})
print('| T | layout | probe | '+' | '.join(names)+' | '+' | '.join(n+'/'+base for n in names[1:])+' | '+names[-1]+'/probe |')
print('| --- '*(4+2*len(names)-1)+'|')
for k in keys:
    vals={n:[r.get(k+('rk::device',)) for r in runs[n]] for n in names}
    cells=[' / '.join('%.1f'%x for x in vals[n] if x) for n in names]
    rat=[]
    for n in names[1:]:
        a=[x for x in vals[n] if x]; b=[x for x in vals[base] if x]
        rat.append('%.3f'%(min(a)/min(b)) if a and b else '')
    last=[x for x in vals[names[-1]] if x]
    print('| %s | %s | %s | %s | %s | %s |'%(k[0],k[1],'%.1f'%probe.get(k,0),' | '.join(cells),' | '.join(rat),'%.3f'%(min(last)/probe[k]) if last and k in probe else ''))
