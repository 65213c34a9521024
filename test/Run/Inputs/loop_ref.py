#!/usr/bin/env python3
"""NumPy checks for the hand-written loop-level programs in test/Run/loop-*.mlir.

Each program returns its (generated) input buffer first, so the check recomputes the
expected results in float64 from the very values morf-run used.

Usage: loop_ref.py KIND DIR
  rowsum      result0 = x [M, N], result1 = sum over N (f32)
  colsum      result0 = x [M, N], result1 = sum over M (f32)
  accumulate  result0 = x [M, N], result1 = sum over M through a workspace (f32),
              result2 = max over M through accumulate max (f32)
"""
import sys

import numpy as np


def load(d, i):
    return np.load(f"{d}/result{i}.npy")


def close(name, got, ref, tol):
    assert got.shape == ref.shape, f"{name}: shape {got.shape} != {ref.shape}"
    assert got.dtype == np.float32, f"{name}: dtype {got.dtype}"
    err = np.abs(got.astype(np.float64) - ref).max() / max(1.0, np.abs(ref).max())
    assert err <= tol, f"{name}: error {err} > {tol}"


def main():
    kind, d = sys.argv[1], sys.argv[2]
    x = load(d, 0).astype(np.float64)
    assert np.isfinite(x).all(), "input holds non-finite values"
    if kind == "rowsum":
        close("rowsum", load(d, 1), x.sum(axis=1), 1e-5)
    elif kind == "colsum":
        close("colsum", load(d, 1), x.sum(axis=0), 1e-5)
    elif kind == "accumulate":
        close("partial colsum", load(d, 1), x.sum(axis=0), 1e-5)
        # max involves no rounding: exact.
        close("colmax", load(d, 2), x.max(axis=0), 0.0)
    else:
        raise SystemExit(f"unknown kind {kind}")
    print(f"{kind}: ok")


if __name__ == "__main__":
    main()
