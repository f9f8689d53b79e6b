# Cases for im2col_probe.cu (one per line; see its header). python3 im2col_cases.py > im2col_cases.txt
# u32 tensors with dense strides, so a shared word's value names (c, w[, h[, d]], n) directly.
import random
random.seed(11)
out = []
SHAPES = {3: [8, 6, 3], 4: [8, 5, 4, 2], 5: [8, 4, 3, 2, 2]}
def dense(dims):
    s, acc = [], 4 * dims[0]
    for d in dims[1:]:
        s.append(acc); acc *= d
    return s
def add(rank, lower, upper, ch, px, coords, offs, dt=2, sw=0, es=None, dims=None):
    dims = dims or SHAPES[rank]
    es = es or [1] * rank
    out.append(" ".join(map(str, [dt, sw, rank] + dims + dense(dims) + lower + upper + [ch, px] + es + coords + offs)))
# one factor at a time around a base, rank 4
z2 = [0, 0]
add(4, z2, z2, 8, 4, [0, 0, 0, 0], z2)
for px in (1, 2, 5, 6, 10, 16, 20, 21, 40, 41):
    add(4, z2, z2, 8, px, [0, 0, 0, 0], z2)
for lo, up in (([-1, 0], z2), ([0, -1], z2), (z2, [-1, 0]), (z2, [0, -1]), ([-1, -1], [-1, -1]), ([-1, -1], [1, 1]), ([1, 0], z2), (z2, [-2, -1]), ([-2, -2], [0, 0])):
    for px in (4, 12, 30):
        add(4, lo, up, 8, px, [0, 0, 0, 0], z2)
for c in ([0, 1, 0, 0], [0, 2, 1, 0], [0, -1, 0, 0], [0, 0, -1, 0], [0, 4, 3, 0], [0, 0, 0, 1], [0, 3, 3, 1], [4, 0, 0, 0], [0, -1, -1, 0], [0, 5, 0, 0]):
    for px in (3, 12):
        add(4, [-1, -1], [0, 0], 8, px, c, z2)
for o in ([1, 0], [0, 1], [2, 1], [1, 2], [3, 3]):
    for px in (4, 12):
        add(4, [-1, -1], [-1, -1], 8, px, [0, 0, 0, 0], o)
        add(4, [-1, -1], [-1, -1], 8, px, [0, 1, 1, 0], o)
for ch in (4, 16):
    add(4, z2, z2, ch, 6, [0, 0, 0, 0], z2)
    add(4, z2, z2, ch, 6, [4, 1, 0, 0], z2)
for sw in (1, 2, 3):
    add(4, z2, z2, 8, 12, [0, 0, 0, 0], z2, sw=sw)
    add(4, [-1, -1], [0, 0], 16, 12, [0, 0, 0, 0], z2, sw=sw)
for es in ([1, 2, 1, 1], [1, 1, 2, 1], [1, 2, 2, 1], [2, 1, 1, 1], [1, 3, 1, 1]):
    for px in (4, 10):
        add(4, z2, z2, 8, px, [0, 0, 0, 0], z2, es=es)
        add(4, [-1, -1], [0, 0], 8, px, [0, 0, 0, 0], [1, 1], es=es)
# rank 3 and 5
for px in (3, 6, 7, 13):
    add(3, [0], [0], 8, px, [0, 0, 0], [0])
    add(3, [-1], [-1], 8, px, [0, 1, 0], [1])
    add(3, [-2], [1], 8, px, [0, -1, 1], [2])
for px in (4, 12, 25):
    add(5, [0, 0, 0], [0, 0, 0], 8, px, [0, 0, 0, 0, 0], [0, 0, 0])
    add(5, [-1, -1, -1], [0, 0, 0], 8, px, [0, 1, 0, 1, 0], [1, 0, 1])
    add(5, [-1, 0, -1], [-1, 0, 0], 8, px, [0, 0, 1, 0, 1], [0, 1, 1])
# other dtypes (u16: 16 channels = 32 B; u8)
add(4, z2, z2, 16, 6, [0, 0, 0, 0], z2, dt=1, dims=[16, 5, 4, 2])
add(4, z2, z2, 32, 6, [0, 0, 0, 0], z2, dt=0, dims=[32, 5, 4, 2])
# random
for _ in range(250):
    rank = random.choice([3, 4, 4, 5])
    n = rank - 2
    lim = 3
    lower = [random.randint(-2, 1) for _ in range(n)]
    upper = [random.randint(-2, 1) for _ in range(n)]
    ch = random.choice([4, 8, 8, 16])
    px = random.randint(1, 40)
    dims = SHAPES[rank]
    coords = [random.choice([0, 0, 4])] + [random.randint(-2, dims[i] ) for i in range(1, rank)]
    offs = [random.randint(0, 3) for _ in range(n)]
    es = [1] + [random.choice([1, 1, 2]) for _ in range(rank - 1)]
    sw = random.choice([0, 0, 1, 2, 3])
    add(rank, lower, upper, ch, px, coords, offs, sw=sw, es=es)
print("\n".join(out))
