#!/usr/bin/env python3
"""Independent NumPy reference for the RMSNorm / LayerNorm kernels that morf compiles.

The lit tests under test/Run use this script to make inputs for `morf-run` and to
check its outputs against a float64 evaluation written here from the formulas, not
from the compiler.  Only numpy and ml_dtypes (for bfloat16 rounding) are needed.

Subcommands
-----------
gen        Write random inputs to --dir:
             x.npy (M, N), w.npy (N,), dy.npy (M, N), b.npy (N,),
             rstd.npy (M,) and mean.npy (M,)
           x, dy are standard normal, w = 1 + 0.1 * normal, b = 0.1 * normal.
           For --dtype bf16 they are rounded to bfloat16 and stored as float32
           (.npy has no bfloat16; the widening is exact).  mean / rstd come from
           the forward pass over the rounded x (eps = 1e-5), evaluated in float64
           and rounded to float32; they are always float32.  b.npy is written for
           layernorm (its forward pass adds it), mean.npy for layernorm only.
check      Backward check.  Reads the inputs from --inputs and --outputs/result<i>.npy:
             rmsnorm:   result0 = dx, result1 = dw
             layernorm: result0 = dx, result1 = dw, result2 = db
check-fwd  Forward check.  Reads x, w (and b) from --inputs and
             rmsnorm:   result0 = y, result1 = rstd
             layernorm: result0 = y, result1 = mean, result2 = rstd
write-ref  Write the reference itself as result<i>.npy files to --outputs (rounded
           to the dtype as a kernel would); --fwd selects the forward outputs.
           Meant for testing this script.

Formulas (float64, from the already rounded inputs; mean_N / sum_M reduce over
columns / rows):
  RMSNorm bwd:   xhat = x * rstd[:, None]
                 dx = rstd[:, None] * (dy*w - xhat * mean_N(dy*w*xhat)); dw = sum_M(dy*xhat)
  LayerNorm bwd: xhat = (x - mean[:, None]) * rstd[:, None]
                 c1 = mean_N(xhat*dy*w); c2 = mean_N(dy*w)
                 dx = (dy*w - (xhat*c1 + c2)) * rstd[:, None]
                 dw = sum_M(dy*xhat); db = sum_M(dy)
  RMSNorm fwd:   rstd = 1/sqrt(mean_N(x^2) + 1e-5); y = x * rstd[:, None] * w
  LayerNorm fwd: mean = mean_N(x); var = mean_N((x-mean)^2); rstd = 1/sqrt(var + 1e-5)
                 y = (x - mean[:, None]) * rstd[:, None] * w + b

Each output must have the reference's shape and dtype float32 (bf16 results travel
as float32 and must then be exactly bfloat16-representable; the statistics mean and
rstd are float32 in both modes), contain no NaN, and have a relative error
||out - ref||_2 / ||ref||_2 of at most 1e-2 (bf16) or 1e-5 (f32; also used for the
float32 statistics).  --rtol overrides the tolerance for every output.

One line is printed per output (`dx: rel_err=1.2e-03 ok`); the exit status is 0
when all pass, 1 when any check fails, 2 for bad usage.
"""

import argparse
import os
import sys

import numpy as np

EPS = 1e-5
RTOL = {"bf16": 1e-2, "f32": 1e-5}

# Output names, in result<i> order, per mode and kind.
BWD_OUTPUTS = {"rmsnorm": ["dx", "dw"], "layernorm": ["dx", "dw", "db"]}
FWD_OUTPUTS = {"rmsnorm": ["y", "rstd"], "layernorm": ["y", "mean", "rstd"]}
# Outputs that are float32 statistics regardless of --dtype.
STATS = {"mean", "rstd"}


class CheckFailure(Exception):
    """A problem with the files being checked (reported, exit status 1)."""


def round_to(a, dtype):
    """Round a float array to `dtype` ('bf16' or 'f32'); returns float32."""
    a = np.asarray(a)
    if dtype == "bf16":
        import ml_dtypes  # only needed for bf16

        return a.astype(ml_dtypes.bfloat16).astype(np.float32)
    return a.astype(np.float32)


def load(path):
    """Load an .npy file; a missing or unreadable file is a CheckFailure."""
    if not os.path.exists(path):
        raise CheckFailure(f"missing file {path}")
    with open(path, "rb") as f:
        if f.read(6) != b"\x93NUMPY":
            raise CheckFailure(f"{path} is not an .npy file")
    try:
        return np.load(path, allow_pickle=False)
    except Exception as e:  # noqa: BLE001 - any unreadable file is a failure
        raise CheckFailure(f"cannot read {path}: {e}") from e


def fwd_stats(x, kind):
    """Forward statistics of x (float64): (mean or None, rstd)."""
    x = np.asarray(x, np.float64)
    if kind == "rmsnorm":
        return None, 1.0 / np.sqrt(np.mean(x * x, axis=1) + EPS)
    mean = np.mean(x, axis=1)
    var = np.mean((x - mean[:, None]) ** 2, axis=1)
    return mean, 1.0 / np.sqrt(var + EPS)


def ref_fwd(kind, inp):
    """Forward reference in float64: dict name -> array."""
    x = inp["x"].astype(np.float64)
    w = inp["w"].astype(np.float64)
    mean, rstd = fwd_stats(x, kind)
    if kind == "rmsnorm":
        return {"y": x * rstd[:, None] * w, "rstd": rstd}
    b = inp["b"].astype(np.float64)
    y = (x - mean[:, None]) * rstd[:, None] * w + b
    return {"y": y, "mean": mean, "rstd": rstd}


def ref_bwd(kind, inp):
    """Backward reference in float64: dict name -> array."""
    x = inp["x"].astype(np.float64)
    w = inp["w"].astype(np.float64)
    dy = inp["dy"].astype(np.float64)
    rstd = inp["rstd"].astype(np.float64)
    if kind == "rmsnorm":
        xhat = x * rstd[:, None]
        c = np.mean(dy * w * xhat, axis=1)
        dx = rstd[:, None] * (dy * w - xhat * c[:, None])
        return {"dx": dx, "dw": np.sum(dy * xhat, axis=0)}
    mean = inp["mean"].astype(np.float64)
    xhat = (x - mean[:, None]) * rstd[:, None]
    c1 = np.mean(xhat * dy * w, axis=1)
    c2 = np.mean(dy * w, axis=1)
    dx = (dy * w - (xhat * c1[:, None] + c2[:, None])) * rstd[:, None]
    return {"dx": dx, "dw": np.sum(dy * xhat, axis=0), "db": np.sum(dy, axis=0)}


def input_names(kind, fwd):
    """The input files a mode reads."""
    if fwd:
        return ["x", "w"] + (["b"] if kind == "layernorm" else [])
    return ["x", "w", "dy", "rstd"] + (["mean"] if kind == "layernorm" else [])


def load_inputs(kind, fwd, directory):
    return {n: load(os.path.join(directory, f"{n}.npy")) for n in input_names(kind, fwd)}


def cmd_gen(args):
    if args.M <= 0 or args.N <= 0:
        raise SystemExit("norm_ref.py gen: --M and --N must be positive")
    rng = np.random.default_rng(args.seed)
    M, N = args.M, args.N
    x = round_to(rng.standard_normal((M, N)), args.dtype)
    dy = round_to(rng.standard_normal((M, N)), args.dtype)
    w = round_to(1.0 + 0.1 * rng.standard_normal(N), args.dtype)
    b = round_to(0.1 * rng.standard_normal(N), args.dtype)
    mean, rstd = fwd_stats(x, args.kind)
    os.makedirs(args.dir, exist_ok=True)
    out = {"x": x, "w": w, "dy": dy, "rstd": rstd.astype(np.float32)}
    if args.kind == "layernorm":
        out["mean"] = mean.astype(np.float32)
        out["b"] = b
    for name, a in out.items():
        np.save(os.path.join(args.dir, f"{name}.npy"), a)
    return 0


def check_one(name, out, ref, dtype, rtol):
    """Check one output against its reference; returns (ok, message)."""
    if out.shape != ref.shape:
        return False, f"shape {out.shape} != expected {ref.shape}"
    if out.dtype != np.float32:
        return False, f"dtype {out.dtype} != expected float32"
    if np.isnan(out).any():
        return False, f"{int(np.isnan(out).sum())} NaN value(s)"
    if dtype == "bf16" and name not in STATS:
        low = out.view(np.uint32) & 0xFFFF
        bad = np.flatnonzero(low != 0)
        if bad.size:
            i = np.unravel_index(bad[0], out.shape)
            return False, (
                f"{bad.size} value(s) not bfloat16-representable, "
                f"first at {tuple(int(k) for k in i)}: {out[i]!r}"
            )
    diff = out.astype(np.float64) - ref
    num = float(np.linalg.norm(diff.ravel()))
    den = float(np.linalg.norm(ref.ravel()))
    if not np.isfinite(num):
        return False, "non-finite value(s)"
    err = num / den if den > 0 else num
    label = "rel_err" if den > 0 else "abs_err"
    ok = err <= rtol
    verdict = "ok" if ok else f"FAIL (tolerance {rtol:.0e})"
    return ok, f"{label}={err:.3e} {verdict}"


def cmd_check(args, fwd):
    try:
        inp = load_inputs(args.kind, fwd, args.inputs)
        ref = (ref_fwd if fwd else ref_bwd)(args.kind, inp)
    except CheckFailure as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    names = (FWD_OUTPUTS if fwd else BWD_OUTPUTS)[args.kind]
    failed = []
    for i, name in enumerate(names):
        rtol = args.rtol
        if rtol is None:
            rtol = RTOL["f32"] if name in STATS else RTOL[args.dtype]
        path = os.path.join(args.outputs, f"result{i}.npy")
        try:
            out = load(path)
            ok, msg = check_one(name, out, ref[name], args.dtype, rtol)
        except CheckFailure as e:
            ok, msg = False, f"FAIL ({e})"
        if not ok and "FAIL" not in msg:
            msg = f"FAIL ({msg}) in {path}"
        print(f"{name}: {msg}")
        if not ok:
            failed.append(name)
    if failed:
        mode = "forward" if fwd else "backward"
        print(
            f"error: {args.kind} {mode} ({args.dtype}) check failed for: {', '.join(failed)}",
            file=sys.stderr,
        )
        return 1
    return 0


def cmd_write_ref(args):
    try:
        inp = load_inputs(args.kind, args.fwd, args.inputs)
    except CheckFailure as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    ref = (ref_fwd if args.fwd else ref_bwd)(args.kind, inp)
    names = (FWD_OUTPUTS if args.fwd else BWD_OUTPUTS)[args.kind]
    os.makedirs(args.outputs, exist_ok=True)
    for i, name in enumerate(names):
        dtype = "f32" if name in STATS else args.dtype
        np.save(os.path.join(args.outputs, f"result{i}.npy"), round_to(ref[name], dtype))
    return 0


def parser():
    p = argparse.ArgumentParser(
        prog="norm_ref.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="cmd", required=True)

    def common(sp):
        sp.add_argument("--kind", choices=["rmsnorm", "layernorm"], required=True)
        sp.add_argument("--dtype", choices=["bf16", "f32"], default="f32",
                        help="element type of x/w/dy/b and of y/dx/dw/db (default f32)")

    g = sub.add_parser("gen", help="write random inputs")
    common(g)
    g.add_argument("--M", type=int, required=True, help="rows")
    g.add_argument("--N", type=int, required=True, help="columns (normalized axis)")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--dir", required=True, help="output folder for the .npy inputs")

    for name, text in [("check", "check backward outputs"), ("check-fwd", "check forward outputs")]:
        c = sub.add_parser(name, help=text)
        common(c)
        c.add_argument("--inputs", required=True, help="folder written by gen")
        c.add_argument("--outputs", required=True, help="folder with result<i>.npy")
        c.add_argument("--rtol", type=float, default=None,
                       help="override the relative-error tolerance for every output")

    r = sub.add_parser("write-ref", help="write the reference as result<i>.npy (self-test)")
    common(r)
    r.add_argument("--inputs", required=True)
    r.add_argument("--outputs", required=True)
    r.add_argument("--fwd", action="store_true", help="forward outputs instead of backward")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    if args.cmd == "gen":
        return cmd_gen(args)
    if args.cmd == "check":
        return cmd_check(args, fwd=False)
    if args.cmd == "check-fwd":
        return cmd_check(args, fwd=True)
    return cmd_write_ref(args)


if __name__ == "__main__":
    sys.exit(main())
