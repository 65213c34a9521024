#!/usr/bin/env python3
"""Runs the commands of docs/tutorial.md: every `$ ` line of its ```console blocks, in order,
from the repository root, with bash, `morf-opt` and `morf-run` taken from `PATH` (the lit
suite puts its own first; otherwise `target/release` is put first when it exists). A command with `--device gpu` runs only where
`nvidia-smi -L` finds a GPU (else it is reported as skipped). Exits 1 at the first command that
fails, printing it and its output; prints `ok: N commands` at the end.

Usage: python3 tools/scripts/run_tutorial.py [docs/tutorial.md]
"""
import os
import re
import subprocess
import sys


def commands(md):
    out, in_console = [], False
    for line in open(md, encoding="utf-8"):
        s = line.rstrip("\n")
        if re.match(r"^```console\s*$", s):
            in_console = True
        elif s.startswith("```"):
            in_console = False
        elif in_console and s.startswith("$ "):
            out.append(s[2:])
    return out


def have_gpu():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    md = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "docs", "tutorial.md")
    cmds = commands(md)
    if not cmds:
        print(f"run_tutorial: no commands in {md}")
        return 1
    os.makedirs(os.path.join(root, "target", "tutorial"), exist_ok=True)
    gpu = have_gpu()
    env = dict(os.environ)
    release = os.path.join(root, "target", "release")
    if os.path.isdir(release) and not os.environ.get("MORF_LIT"):
        env["PATH"] = release + os.pathsep + env.get("PATH", "")
    ran = 0
    for c in cmds:
        if "--device gpu" in c and not gpu:
            print(f"skipped (no GPU): {c}")
            continue
        r = subprocess.run(["bash", "-c", c], cwd=root, env=env, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            print(f"run_tutorial: FAILED (exit {r.returncode}): {c}\n{r.stdout}{r.stderr}")
            return 1
        print(f"ran: {c}")
        ran += 1
    print(f"ok: {ran} commands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
