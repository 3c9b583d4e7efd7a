# The table of perf/RESULTS.md's few-segments section from the four runs here:
#   python3 make_table.py perf/results/segmented-few-h200
import gzip,json,sys
def load(f):
    d=json.load(gzip.open(f)); out={}
    for b in d['benchmarks']:
        for s in b['states']:
            ax={a['name']:a['value'] for a in s['axis_values']}
            t=None
            for sm in (s.get('summaries') or []):
                if sm['tag']=='nv/cold/time/gpu/median':
                    for dd in sm['data']:
                        if dd['name']=='value': t=float(dd['value'])*1e6
            out[(ax['T'],ax['Segments'],ax['Impl'])]=t
    return out
d=sys.argv[1]
runs={k:load(f'{d}/seg_{k}.json.gz') for k in ['head_1','new_1','head_2','new_2']}
segs=['all 65536','all 1048576','all 16777216','one segment','power law']
print('| T | segments | impl | 3369efa, run 1 / 2 | f178bd3, run 1 / 2 | f178bd3 / 3369efa | / CSR probe | / rk::reduce_into |')
print('| --- | --- | --- | ---: | ---: | --- | --- | --- |')
for T in ['F32','F64']:
    for sg in segs:
        for impl in ['rk::device','rk CUB form','rk::two_pass','cub','CSR probe','rk::reduce_into']:
            k=(T,sg,impl)
            if runs['new_1'].get(k) is None: continue
            h=[runs['head_1'].get(k),runs['head_2'].get(k)]; n=[runs['new_1'].get(k),runs['new_2'].get(k)]
            p=[runs['new_1'].get((T,sg,'CSR probe')),runs['new_2'].get((T,sg,'CSR probe'))]
            ri=[runs['new_1'].get((T,'one segment','rk::reduce_into')),runs['new_2'].get((T,'one segment','rk::reduce_into'))]
            r=lambda a,b: '%.3f, %.3f'%(a[0]/b[0],a[1]/b[1]) if None not in a+b else ''
            show_p = impl not in ('CSR probe','rk::reduce_into')
            print(f"| {T} | {sg} | {impl} | {h[0]:.1f} / {h[1]:.1f} | {n[0]:.1f} / {n[1]:.1f} | {r(n,h)} | {r(n,p) if show_p else ''} | {r(n,ri) if show_p else ''} |")
