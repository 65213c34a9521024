"""Rewrites morf's PTX so that its read-once input loads carry an L2 eviction hint.

usage: hint_ptx.py IN OUT MODE, MODE one of
  cs : `ld.global.nc.X` -> `ld.global.cs.nc.X` (cache streaming: evict-first in L1 and L2)
  ef : `ld.global.nc.X d, [a];` -> `ld.global.nc.L1::no_allocate.L2::cache_hint.X d, [a], %pol;`
       and `cp.async.cg.shared.global [d], [s], 16;` -> `....L2::cache_hint [d], [s], 16, %pol;`
       with `createpolicy.fractional.L2::evict_first.b64 %pol, 1.0;` at each entry's start.
A device experiment (session 24), not part of the compiler.
"""
import re, sys
src, dst, mode = sys.argv[1:4]
out = []
for line in open(src):
    s = line
    if mode == "cs":
        s = s.replace("ld.global.nc.", "ld.global.cs.nc.")
    elif mode == "ef":
        if line.rstrip("\n") == "{":
            out.append(line)
            out.append("\t.reg .b64 %pol;\n\tcreatepolicy.fractional.L2::evict_first.b64 %pol, 1.0;\n")
            continue
        m = re.match(r"(\s*(?:@%p\d+\s+)?)ld\.global\.nc\.(\S+)\s+(.*\]);(.*)$", line)
        if m:
            s = f"{m.group(1)}ld.global.nc.L1::no_allocate.L2::cache_hint.{m.group(2)} {m.group(3)}, %pol;{m.group(4)}\n"
        m = re.match(r"(\s*(?:@%p\d+\s+)?)cp\.async\.cg\.shared\.global\s+(.*);(.*)$", line)
        if m:
            s = f"{m.group(1)}cp.async.cg.shared.global.L2::cache_hint {m.group(2)}, %pol;{m.group(3)}\n"
    out.append(s)
open(dst, "w").write("".join(out))
