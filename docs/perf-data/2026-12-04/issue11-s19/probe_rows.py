"""Issue 11, nineteenth session: where a row kernel's time goes at long rows.

A probe written in Triton (not morf): RMSNorm backward's dx (and optionally its dw partials)
over long rows in several launch structures, against a pointwise kernel of the same traffic,
all timed with triton.testing.do_bench (median, L2 flushed) in one process:

- `grid=M`      one program per row, the hardware schedules them (no persistence)
- `static`      a persistent grid, program p takes rows [p*S, (p+1)*S)
- `interleave`  a persistent grid, program p takes rows p, p+P, ...
- `dynamic`     a persistent grid, each program takes its next row from an atomic counter

Prints one line per variant: us, % of the floor (bytes of x, dy, dx, rstd at the copy bandwidth).
"""
import os, sys, json
import torch, triton, triton.language as tl
from triton.testing import do_bench


@triton.jit
def add2(X, DY, O, n, BLOCK: tl.constexpr):
    o = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    a = tl.load(X + o, mask=m).to(tl.float32)
    b = tl.load(DY + o, mask=m).to(tl.float32)
    tl.store(O + o, (a + b).to(tl.bfloat16), mask=m)


@triton.jit
def row_body(X, DY, RSTD, DX, r, w, cols, N: tl.constexpr):
    base = r.to(tl.int64) * N
    x = tl.load(X + base + cols).to(tl.float32)
    dy = tl.load(DY + base + cols).to(tl.float32)
    rs = tl.load(RSTD + r)
    g = dy * w
    c = tl.sum(g * x, 0) / N
    dx = (g - x * (c * rs * rs)) * rs
    tl.store(DX + base + cols, dx.to(tl.bfloat16))
    return dy * x * rs


@triton.jit
def rn_grid(X, DY, W, RSTD, DX, M, N: tl.constexpr):
    cols = tl.arange(0, N)
    w = tl.load(W + cols).to(tl.float32)
    row_body(X, DY, RSTD, DX, tl.program_id(0), w, cols, N)


@triton.jit
def rn_persist(X, DY, W, RSTD, DX, DWP, M, N: tl.constexpr, NPROG: tl.constexpr,
               INTERLEAVE: tl.constexpr, DW: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, N)
    w = tl.load(W + cols).to(tl.float32)
    acc = tl.zeros([N], tl.float32)
    if INTERLEAVE:
        start = pid
        stop = M
        step = NPROG
    else:
        per = tl.cdiv(M, NPROG)
        start = pid * per
        stop = tl.minimum(start + per, M)
        step = 1
    for r in range(start, stop, step):
        p = row_body(X, DY, RSTD, DX, r, w, cols, N)
        if DW:
            acc += p
    if DW:
        tl.store(DWP + pid * N + cols, acc)


@triton.jit(do_not_specialize=["base"])
def rn_dynamic(X, DY, W, RSTD, DX, DWP, CNT, base, M, N: tl.constexpr, DW: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, N)
    w = tl.load(W + cols).to(tl.float32)
    acc = tl.zeros([N], tl.float32)
    r = tl.atomic_add(CNT, 1) - base
    while r < M:
        nxt = tl.atomic_add(CNT, 1) - base
        p = row_body(X, DY, RSTD, DX, r, w, cols, N)
        if DW:
            acc += p
        r = nxt
    if DW:
        tl.store(DWP + pid * N + cols, acc)


def main():
    shapes = [tuple(int(v) for v in s.split("x")) for s in os.environ.get("SHAPES", "16384x8192,32768x4096").split(",")]
    dev = torch.device("cuda")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    src = torch.empty(1 << 29, dtype=torch.bfloat16, device=dev).normal_()
    dst = torch.empty_like(src)
    copy_t = do_bench(lambda: dst.copy_(src), warmup=25, rep=300, return_mode="median")
    bw = 2 * src.numel() * 2 / (copy_t * 1e-3)
    del src, dst
    print(f"copy 1 GiB: {copy_t*1e3:.1f} us, {bw/1e12:.3f} TB/s", flush=True)
    rows = []
    for (M, N) in shapes:
        x = torch.randn(M, N, device=dev, dtype=torch.bfloat16)
        dy = torch.randn(M, N, device=dev, dtype=torch.bfloat16)
        w = torch.randn(N, device=dev, dtype=torch.bfloat16)
        rstd = torch.rand(M, device=dev, dtype=torch.float32) + 0.5
        dx = torch.empty_like(x)
        floor_bytes = 3 * M * N * 2 + M * 4 + N * 2
        floor_us = floor_bytes / bw * 1e6
        # reference dx for the first check
        xf, dyf, wf = x.double(), dy.double(), w.double()
        g = dyf * wf
        c = (g * xf).sum(1, keepdim=True) / N
        rs = rstd.double()[:, None]
        ref = ((g - xf * c * rs * rs) * rs)
        del xf, dyf, g
        cnt = torch.zeros(1, device=dev, dtype=torch.int32)
        out = torch.empty_like(x)

        def err():
            e = (dx.double() - ref).norm() / ref.norm()
            return e.item()

        variants = []
        variants.append(("add2 (pointwise, same bytes)", lambda: add2[(triton.cdiv(M * N, 2048),)](x, dy, out, M * N, BLOCK=2048, num_warps=8), None))
        for nw in (4, 8, 16):
            variants.append((f"grid=M nw={nw}", (lambda nw=nw: rn_grid[(M,)](x, dy, w, rstd, dx, M, N=N, num_warps=nw)), True))
        for per_sm in (1, 2):
            P = sms * per_sm
            dwp = torch.empty(P, N, device=dev, dtype=torch.float32)
            for nw in (8, 16):
                for ns in (1, 3):
                    for dw in (False, True):
                        variants.append((f"static P={P} nw={nw} stages={ns} dw={int(dw)}", (lambda P=P, nw=nw, ns=ns, dw=dw, dwp=dwp: rn_persist[(P,)](x, dy, w, rstd, dx, dwp, M, N=N, NPROG=P, INTERLEAVE=False, DW=dw, num_warps=nw, num_stages=ns)), True))
                variants.append((f"interleave P={P} nw={nw} stages=3 dw=0", (lambda P=P, nw=nw, dwp=dwp: rn_persist[(P,)](x, dy, w, rstd, dx, dwp, M, N=N, NPROG=P, INTERLEAVE=True, DW=False, num_warps=nw, num_stages=3)), True))
                for dw in (False, True):
                    state = {"k": 0}

                    def dyn(P=P, nw=nw, dw=dw, dwp=dwp, state=state):
                        b = state["k"] * (M + P)
                        state["k"] += 1
                        if b + M + P >= 2**31 - 1:
                            cnt.zero_()
                            state["k"] = 1
                            b = 0
                        rn_dynamic[(P,)](x, dy, w, rstd, dx, dwp, cnt, b, M, N=N, DW=dw, num_warps=nw, num_stages=1)
                    variants.append((f"dynamic P={P} nw={nw} dw={int(dw)}", dyn, True))
        for name, fn, check in variants:
            try:
                cnt.zero_()
                dx.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                e = err() if check else float("nan")
                if check and not (e <= 1e-2):
                    print(f"{M}x{N} {name}: WRONG err={e:.3g}", flush=True)
                    continue
                t = do_bench(fn, warmup=25, rep=300, return_mode="median")
                t2 = do_bench(fn, warmup=25, rep=300, return_mode="median")
                us = min(t, t2) * 1e3
                line = f"{M}x{N} | {name} | {t*1e3:.1f}, {t2*1e3:.1f} us | {floor_us/us*100:.1f}% | err {e:.2g}"
                print(line, flush=True)
                rows.append({"shape": f"{M}x{N}", "variant": name, "us": [t * 1e3, t2 * 1e3], "floor_us": floor_us, "err": e})
            except Exception as ex:
                print(f"{M}x{N} {name}: FAILED {type(ex).__name__}: {str(ex)[:200]}", flush=True)
        del x, dy, dx, ref, out
        torch.cuda.empty_cache()
    out_dir = os.environ.get("OUT", ".")
    json.dump({"copy_tb_per_s": bw / 1e12, "rows": rows}, open(os.path.join(out_dir, "probe_rows.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
