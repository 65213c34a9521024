#!/usr/bin/env python3
"""The fusion cost model against the tuner's measurements (docs/perf.md, docs/tuning.md).

For every candidate of `morf-tune --json` reports that the model can price (the untuned
configuration and those that set only the fusion-level knob `splits`: the model does not see the
lowering's knobs), runs `morf-opt ... fuse-mixed-reductions{report=true}` with the same size
hints and split, reads the chosen plan's predicted time, and prints it beside the measured median
with the error, then the median and largest absolute error. The data a calibration of the model
would be fitted on.

Usage (repository root): python3 tools/morf-tune/scripts/model_error.py MORF_OPT REPORT.json...
"""
import json
import re
import subprocess
import sys


def predicted_us(opt, file, hints, splits, device=""):
    """The model's time of the chosen plan at `hints` (with `splits` fixed, and `device`
    overrides of the model, if given)."""
    fuse = f"size-hints={hints} report=true" + (f" splits={splits}" if splits else "")
    if device:
        fuse += f" device={device}"
    pipeline = f"builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{{{fuse}}})"
    out = subprocess.run([opt, file, f"--pass-pipeline={pipeline}", "-o", "/dev/null"],
                         capture_output=True, text=True)
    m = re.search(r"#\d+ ([0-9.]+) us .*<- chosen", out.stderr)
    return float(m.group(1)) if m else None


def priced_trials(report):
    """The candidates of a `morf-tune --json` report the model can price: untuned, or only
    `splits` set (one per split), as (shape, trial, split or None)."""
    for s in report["shapes"]:
        seen = set()
        for t in s["trials"]:
            parts = [] if t["config"] == "untuned" else t["config"].split()
            if t["us"] is None or any(not p.startswith("splits=") for p in parts):
                continue
            splits = int(parts[0].split("=", 1)[1]) if parts else None
            if splits in seen:
                continue
            seen.add(splits)
            yield s, t, splits


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    opt, reports = sys.argv[1], sys.argv[2:]
    errors = []
    print("| program | sizes | hints | config | measured us | predicted us | error |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for path in reports:
        r = json.load(open(path))
        for s, t, splits in priced_trials(r):
            p = predicted_us(opt, r["file"], s["hints"], splits)
            if p is None:
                continue
            e = p / t["us"] - 1.0
            errors.append(abs(e))
            print(f"| {r['function']} | {s['sizes']} | {s['hints']} | {t['config']} | {t['us']:.1f} | {p:.1f} | {100 * e:+.0f}% |")
    if errors:
        errors.sort()
        print(f"\n{len(errors)} configurations: median |error| {100 * errors[len(errors) // 2]:.0f}%, "
              f"largest {100 * errors[-1]:.0f}%")


if __name__ == "__main__":
    main()
