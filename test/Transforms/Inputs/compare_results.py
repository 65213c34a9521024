"""Compares the result<i>.npy files of two morf-run output folders.

usage: compare_results.py REF_DIR OUT_DIR [--rtol R] [--exact]

Exits 1 (with the first mismatch) unless both folders hold the same results, equal within
`rtol * (|ref| + max|ref|)` (or bit-equal with --exact; NaN equals NaN). Prints
`compared N results` on success.
"""
import argparse
import glob
import os
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ref")
    ap.add_argument("out")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--exact", action="store_true")
    a = ap.parse_args()
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(a.ref, "result*.npy")))
    if not names:
        sys.exit(f"no results in {a.ref}")
    for n in names:
        r = np.load(os.path.join(a.ref, n)).astype(np.float64)
        o = np.load(os.path.join(a.out, n)).astype(np.float64)
        if r.shape != o.shape:
            sys.exit(f"{n}: shapes {r.shape} and {o.shape} differ")
        both_nan = np.isnan(r) & np.isnan(o)
        if a.exact:
            bad = ~((r == o) | both_nan)
        else:
            finite = r[np.isfinite(r)]
            scale = np.abs(finite).max() if finite.size else 0.0
            bad = ~((r == o) | both_nan | (np.abs(r - o) <= a.rtol * (np.abs(r) + scale)))
        if bad.any():
            i = np.argwhere(bad)[0]
            sys.exit(f"{n}: element {tuple(i)}: {r[tuple(i)]} vs {o[tuple(i)]}")
    print(f"compared {len(names)} results")


if __name__ == "__main__":
    main()
