#!/usr/bin/env python3
"""NumPy checks for the hand-written GPU-level programs in test/Run/gpu-sim-*.mlir.

Each program returns its (generated) input buffer first, so the check recomputes the
expected results from the very values morf-run used.

Usage: gpu_ref.py KIND DIR
  elementwise  result0 = x [N] (bf16, read as f32), result1 = f32(2 x + 1)
  rowsum       result0 = x [M, N] (f32), result1 = sum over N (f32)
  shuffle      result0..result4 = per thread t of 72: t, xor 1, down 1, up 3, idx 5
               (threads past the last full warp form a partial warp)
  gridstride   result0 = x [N] (f32), result1 = x * x (f32)
"""
import sys

import numpy as np


def load(d, i):
    return np.load(f"{d}/result{i}.npy")


def close(name, got, ref, tol):
    assert got.shape == ref.shape, f"{name}: shape {got.shape} != {ref.shape}"
    assert got.dtype == np.float32, f"{name}: dtype {got.dtype}"
    err = np.abs(got.astype(np.float64) - ref).max(initial=0.0) / max(1.0, np.abs(ref).max(initial=0.0))
    assert err <= tol, f"{name}: error {err} > {tol}"


def shuffle_ref(n, src_of):
    out = np.zeros(n)
    for t in range(n):
        lane, base = t % 32, t - t % 32
        s = src_of(lane)
        out[t] = base + s if 0 <= s < 32 and base + s < n else t
    return out


def main():
    kind, d = sys.argv[1], sys.argv[2]
    if kind == "elementwise":
        x = load(d, 0).astype(np.float64)
        close("axpb", load(d, 1), (x * 2 + 1).astype(np.float32).astype(np.float64), 0.0)
    elif kind == "rowsum":
        x = load(d, 0).astype(np.float64)
        close("rowsum", load(d, 1), x.sum(axis=1), 1e-5)
    elif kind == "shuffle":
        n = load(d, 0).shape[0]
        close("ids", load(d, 0), np.arange(n, dtype=np.float64), 0.0)
        close("xor 1", load(d, 1), shuffle_ref(n, lambda lane: lane ^ 1), 0.0)
        close("down 1", load(d, 2), shuffle_ref(n, lambda lane: lane + 1), 0.0)
        close("up 3", load(d, 3), shuffle_ref(n, lambda lane: lane - 3), 0.0)
        close("idx 5", load(d, 4), shuffle_ref(n, lambda lane: 5), 0.0)
    elif kind == "gridstride":
        x = load(d, 0).astype(np.float64)
        close("square", load(d, 1), (x * x).astype(np.float32).astype(np.float64), 0.0)
    else:
        raise SystemExit(f"unknown kind {kind}")
    print(f"{kind}: ok")


if __name__ == "__main__":
    main()
