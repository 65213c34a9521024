#!/usr/bin/env python3
"""Calibrates the fusion cost model's constants on measured times (docs/perf.md, docs/tuning.md).

The points: every candidate of `morf-tune --json` reports that the model can price (untuned, or
only `splits` set: the model does not see the lowering's knobs), plus the points of
POINTS.json files (`{"points": [{"file", "sizes", "splits", "us", "source"}]}`). The model's
constants are `Device::model` (fusion/device.rs), set through `fuse-mixed-reductions{device=...}`
(`row-trip`, `load-base`, `load-step`, `inflight-half`, `inflight-knee`, `flush`, `warp-chain`). The fit is
coordinate descent over a grid of each, minimizing the mean |log(predicted / measured)|. It prints
every point before and after, the error summaries, and a leave-one-shape-out check (each shape's
points predicted by constants fitted without them), then the override string.

Usage (repository root):
  python3 tools/morf-tune/scripts/calibrate_model.py MORF_OPT REPORT.json|POINTS.json...
"""
import json
import math
import sys

from model_error import predicted_us as model_us, priced_trials

GRID = {
    "row-trip": [0.6e-6, 0.8e-6, 1.0e-6, 1.2e-6, 1.5e-6, 1.8e-6, 2.2e-6, 2.8e-6],
    "load-base": [0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0],
    "load-step": [0.0, 0.05, 0.1, 0.15, 0.2, 0.3],
    "inflight-half": [2048, 4096, 8192, 12288, 16384, 24576, 32768, 49152],
    "inflight-knee": [1, 2, 4, 8],
    "flush": [0.5e-6, 1.0e-6, 1.5e-6, 2.5e-6, 4e-6],
    "warp-chain": [0.05e-6, 0.15e-6, 0.3e-6],
}
# The H200 defaults of `ModelConstants::h200()` (the fit starts there; "before" is the model
# as built, no override).
DEFAULT = {"row-trip": 0.8e-6, "load-base": 0.4, "load-step": 0.1, "inflight-half": 4096, "inflight-knee": 1,
           "flush": 1.0e-6, "warp-chain": 0.3e-6}
_cache = {}


def overrides(c):
    return ",".join(f"{k}={v:g}" for k, v in c.items())


def predicted_us(opt, p, c):
    key = (p["file"], p["sizes"], p["splits"], overrides(c))
    if key not in _cache:
        _cache[key] = model_us(opt, p["file"], p["sizes"], p["splits"], overrides(c))
    return _cache[key]


def load_points(paths):
    pts = []
    for path in paths:
        r = json.load(open(path))
        if "points" in r:
            for q in r["points"]:
                pts.append(dict(q, source=f"{path}: {q.get('source', '')}"))
            continue
        for s, t, splits in priced_trials(r):
            if s["sizes"] == s["hints"]:
                pts.append({"file": r["file"], "sizes": s["sizes"], "splits": splits, "us": t["us"], "source": path})
    return pts


def loss(opt, pts, c):
    errs = []
    for p in pts:
        q = predicted_us(opt, p, c)
        if q is None:
            return math.inf
        errs.append(abs(math.log(q / p["us"])))
    return sum(errs) / len(errs)


def fit(opt, pts, rounds=3):
    c = dict(DEFAULT)
    best = loss(opt, pts, c)
    for _ in range(rounds):
        changed = False
        for k, values in GRID.items():
            for v in values:
                trial = dict(c, **{k: v})
                l = loss(opt, pts, trial)
                if l < best - 1e-9:
                    best, c, changed = l, trial, True
        if not changed:
            break
    return c, best


def summary(errs):
    a = sorted(abs(e) for e in errs)
    return f"median |error| {100 * a[len(a) // 2]:.0f}%, mean {100 * sum(a) / len(a):.0f}%, largest {100 * a[-1]:.0f}%"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    opt, paths = sys.argv[1], sys.argv[2:]
    pts = load_points(paths)
    c, _ = fit(opt, pts)
    shapes = sorted({(p["file"], p["sizes"]) for p in pts})
    loo = {}
    for sh in shapes:
        held = [p for p in pts if (p["file"], p["sizes"]) == sh]
        cs, _ = fit(opt, [p for p in pts if (p["file"], p["sizes"]) != sh])
        for p in held:
            loo[id(p)] = predicted_us(opt, p, cs)
    print("| program | sizes | split | measured us | before us (error) | after us (error) | left-out us (error) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    before, after, left = [], [], []
    for p in pts:
        b, a, l = predicted_us(opt, p, {}), predicted_us(opt, p, c), loo[id(p)]
        eb, ea, el = b / p["us"] - 1, a / p["us"] - 1, l / p["us"] - 1
        before.append(eb), after.append(ea), left.append(el)
        name = p["file"].split("/")[-1].removesuffix(".mlir")
        print(f"| {name} | {p['sizes']} | {p['splits'] or 'model'} | {p['us']:.1f} | {b:.1f} ({100 * eb:+.0f}%) | "
              f"{a:.1f} ({100 * ea:+.0f}%) | {l:.1f} ({100 * el:+.0f}%) |")
    print(f"\n{len(pts)} points, {len(shapes)} shapes")
    print(f"before (the model as built): {summary(before)}")
    print(f"after (fitted on all):      {summary(after)}")
    print(f"left out (fitted without the point's shape): {summary(left)}")
    print(f"fitted: device={overrides(c)}")


if __name__ == "__main__":
    main()
