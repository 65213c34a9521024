# Where does a read-only call's time go? Times torch ops on a 65536 x 1024 bf16 matrix
# (128 MiB) with CUDA events around each call, after four kinds of L2 preparation:
#   memset : do_bench's 256 MB zero fill (leaves the L2 full of dirty lines)
#   clean  : the same fill, then a sum over a separate 192 MiB buffer (the dirty lines are
#            written back and replaced by clean ones; the timed call reads a cold, clean L2)
#   none   : nothing (the previous call's lines stay)
#   readonly: only the sum over the separate buffer (clean L2, no fill)
import torch, statistics, sys
torch.manual_seed(0)
dev = "cuda"
M, N = 65536, 1024
x = torch.randn(M, N, device=dev, dtype=torch.bfloat16)
y = torch.empty_like(x)
half = torch.empty(M // 2, N, device=dev, dtype=torch.bfloat16)
flush = torch.empty(int(256e6 // 4), dtype=torch.int, device=dev)
other = torch.randn(96 << 20, device=dev, dtype=torch.bfloat16)  # 192 MiB
sink = torch.empty(1, device=dev, dtype=torch.float32)
xh = x[: M // 2]

def prep(kind):
    if kind in ("memset", "clean"):
        flush.zero_()
    if kind in ("clean", "readonly"):
        sink.copy_(other.sum(dtype=torch.float32))

ops = {
    "copy 128MiB->128MiB": lambda: y.copy_(x),
    "copy 64MiB->64MiB (same bytes as the read)": lambda: half.copy_(xh),
    "rowsum read 128MiB": lambda: x.sum(dim=1, dtype=torch.float32),
    "colmax read 128MiB": lambda: x.amax(dim=0),
    "sum all read 128MiB": lambda: x.sum(dtype=torch.float32),
}
RUNS = 200
res = {}
for name, f in ops.items():
    for kind in ("memset", "clean", "none", "readonly"):
        for _ in range(10):
            prep(kind); f()
        torch.cuda.synchronize()
        evs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(RUNS)]
        for s, e in evs:
            prep(kind)
            s.record(); f(); e.record()
        torch.cuda.synchronize()
        t = statistics.median(s.elapsed_time(e) * 1e3 for s, e in evs)
        res[(name, kind)] = t
        print(f"{name:45s} {kind:9s} {t:8.1f} us", flush=True)
print()
print(f"{'op':45s} " + " ".join(f"{k:>9s}" for k in ("memset", "clean", "none", "readonly")))
for name in ops:
    print(f"{name:45s} " + " ".join(f"{res[(name, k)]:9.1f}" for k in ("memset", "clean", "none", "readonly")))
