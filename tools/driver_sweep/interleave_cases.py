# Cases for interleave_probe.cu (one per line; see its header). python3 interleave_cases.py > il_cases.txt
import random
random.seed(7)
ES = {0:1, 1:2, 2:4, 4:8}
out = []
def add(dt, il, sw, dims, strides, box, es, coords):
    r = len(dims)
    out.append(" ".join(map(str, [dt, il, sw, r] + dims + strides + box + es + coords)))
# deterministic core set: u16 il16 no swizzle, one factor at a time
base = dict(dt=1, il=1, sw=0, dims=[8,5,3], strides=[48,400], box=[8,1,1], es=[1,1,1], coords=[0,0,0])
def var(**kw):
    c = dict(base); c.update(kw); add(**c)
var()
for b1 in (2,3,4,5,6): var(box=[8,b1,1])
for b2 in (2,3,4): var(box=[8,1,b2])
var(box=[8,2,2]); var(box=[16,1,1]); var(box=[16,2,1]); var(box=[4,1,1]); var(box=[24,1,1]); var(box=[32,2,2])
for d0 in (4,8,12,16,24): var(dims=[d0,5,3], strides=[64,512])
for c in ([8,0,0],[0,1,0],[0,0,1],[0,2,1],[0,4,0],[0,-1,0],[-8,0,0],[1,0,0],[2,0,0],[4,0,0],[0,0,-1],[16,0,0]): var(coords=c)
for c in ([0,1,0],[0,4,0],[0,-1,0]): var(box=[8,3,1], coords=c)
for es in ([2,1,1],[1,2,1],[1,1,2],[2,2,1],[1,3,1]): var(box=[8,4,2], es=es)
var(dims=[16,5,3], strides=[64,512], box=[16,3,2])
var(dims=[16,5,3], strides=[64,512], box=[8,3,2], coords=[8,0,0])
# 32B interleave (swizzle must be 32B) and swizzles with 16B
for sw in (0,1,2,3): var(sw=sw, dims=[8,9,3], strides=[48,480], box=[8,8,2])
for sw in (1,2,3): var(sw=sw, dims=[16,9,3], strides=[64,640], box=[16,8,2])
var(il=2, sw=1, dims=[16,5,3], strides=[64,512], box=[16,1,1])
var(il=2, sw=1, dims=[16,5,3], strides=[64,512], box=[16,3,1])
var(il=2, sw=1, dims=[16,5,3], strides=[64,512], box=[16,3,2])
var(il=2, sw=1, dims=[32,5,3], strides=[96,512], box=[16,3,2])
var(il=2, sw=1, dims=[8,5,3], strides=[64,512], box=[16,3,2])
# other dtypes, rank 4/5
for dt in (0,2,4):
    e = ES[dt]; ce = 16 // e
    var(dt=dt, dims=[ce,5,3], strides=[48,400], box=[ce,3,2])
    var(dt=dt, dims=[2*ce,5,3], strides=[64,512], box=[ce,3,2])
    var(dt=dt, il=2, sw=1, dims=[2*ce,5,3], strides=[64,512], box=[2*ce,3,2])
var(dims=[8,5,3,2], strides=[48,400,1600], box=[8,2,2,2], es=[1,1,1,1], coords=[0,0,0,0])
var(dims=[8,5,3,2,2], strides=[48,400,1600,4000], box=[8,2,2,2,2], es=[1,1,1,1,1], coords=[0,1,0,1,0])
# random set
for _ in range(600):
    dt = random.choice([0,1,2,4]); e = ES[dt]
    il = random.choice([1,1,2]); sw = 1 if il == 2 else random.choice([0,1,2,3])
    cb = 16 if il == 1 else 32; ce = max(1, cb // e)
    r = random.choice([3,3,4,5])
    d0 = random.choice([ce//2 or 1, ce, 2*ce, 3*ce, 5])
    dims = [d0] + [random.randint(1,7) for _ in range(r-1)]
    pitch0 = -(-max(d0*e, 1) // cb) * cb + random.choice([0, cb, 2*cb])
    strides = [pitch0]
    for i in range(1, r-1): strides.append(strides[-1]*dims[i] + random.choice([0, cb, 4*cb]))
    box = [random.choice([ce, 2*ce, ce//2 or 1, 4*ce])] + [random.randint(1,8) for _ in range(r-1)]
    es = [random.choice([1,1,2])] + [random.choice([1,1,2,3]) for _ in range(r-1)]
    coords = [random.choice([0,0,ce,-ce,ce//2])] + [random.choice([0,0,1,2,-1]) for _ in range(r-1)]
    add(dt, il, sw, dims, strides, box, es, coords)
print("\n".join(out))
