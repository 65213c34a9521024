"""Compares the results of two morf-run output folders (result0.npy, result1.npy, ...).

usage: compare.py REF_DIR GOT_DIR [--rtol 1e-2]

Each pair must have the same shape, no NaN, and a relative L2 error
||got - ref|| / max(||ref||, 1e-30) within --rtol (1e-2 suits bf16; use 1e-5 for f32).
"""
import glob
import os
import sys

import numpy as np


def main():
    args = sys.argv[1:]
    rtol = 1e-2
    if "--rtol" in args:
        k = args.index("--rtol")
        rtol = float(args[k + 1])
        del args[k : k + 2]
    ref_dir, got_dir = args
    refs = sorted(glob.glob(os.path.join(ref_dir, "result*.npy")))
    if not refs:
        sys.exit(f"no results in {ref_dir}")
    ok = True
    for r in refs:
        name = os.path.basename(r)
        ref = np.load(r).astype(np.float64)
        got = np.load(os.path.join(got_dir, name)).astype(np.float64)
        if ref.shape != got.shape:
            print(f"{name}: shape {got.shape} != {ref.shape}")
            ok = False
            continue
        if np.isnan(got).any() and not np.isnan(ref).any():
            print(f"{name}: NaN in the result")
            ok = False
            continue
        err = np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-30)
        status = "ok" if err <= rtol else "FAIL"
        print(f"{name}: {ref.shape} rel-l2 {err:.3e} {status}")
        ok &= err <= rtol
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
