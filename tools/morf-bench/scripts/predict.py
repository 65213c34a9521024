#!/usr/bin/env python3
"""Compares the fusion cost model's predictions with a calibration sweep's measurements.

Reads the summary of tools/morf-bench/scripts/calibrate.sh (one line per configuration),
asks `morf-opt --fusion-report` for the model's time of the chosen plan under the same
forced split and sizes, and prints a table: measured us, predicted us, and the error.

Usage: python3 tools/morf-bench/scripts/predict.py SUMMARY [MORF_OPT]
"""
import re
import subprocess
import sys


def predict(opt, file, sizes, split):
    fuse = "fuse-mixed-reductions{size-hints=%s%s}" % (sizes, "" if split == "auto" else " splits=" + split)
    pipe = "builtin.module(lower-tensor-to-loop,canonicalize,cse,%s)" % fuse
    out = subprocess.run([opt, file, "--pass-pipeline=" + pipe, "--fusion-report", "-o", "/dev/null"],
                         capture_output=True, text=True).stderr
    total = 0.0
    found = False
    for m in re.finditer(r"^  #1 ([0-9.]+) us", out, re.M):
        total += float(m.group(1))
        found = True
    return total if found else None


def main():
    summary = sys.argv[1]
    opt = sys.argv[2] if len(sys.argv) > 2 else "target/release/morf-opt"
    rows = []
    for line in open(summary):
        f = line.split()
        if len(f) < 6 or not f[4].startswith("fused=") or f[4] == "fused=FAIL":
            continue
        name, sizes, split = f[0], f[1], f[2][2:]
        m = re.match(r"(default|split|split576|split8k|warp|large)-(.+?)(-\d+)?$", name)
        b = re.match(r"bench-(.+?)-M=", name)
        if b:
            file = "examples/%s.mlir" % b.group(1)
        elif m and m.group(1) != "warp":
            file = "examples/%s.mlir" % m.group(2)
        else:
            continue
        measured = float(f[4][6:])
        p = predict(opt, file, sizes, split)
        if p is None:
            continue
        err = (p - measured) / measured * 100
        rows.append((name, sizes, split, measured, p, err))
    print("| configuration | sizes | split | measured us | predicted us | error |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print("| %s | %s | %s | %.1f | %.1f | %+.0f%% |" % r)
    bad = [r for r in rows if abs(r[5]) > 25]
    print("\n%d configurations, %d outside +-25%%" % (len(rows), len(bad)))


if __name__ == "__main__":
    main()
