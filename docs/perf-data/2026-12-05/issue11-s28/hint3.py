"""Rewrites morf's PTX so that its DRAM traffic carries evict-first L2 hints (session 28, call 3).

usage: hint3.py IN OUT MODE, MODE one of
  cs     : `ld.global.nc.X` -> `ld.global.cs.nc.X`, and each `cp.async.cg.shared.global` with
           `.L2::cache_hint` and a `createpolicy.fractional.L2::evict_first` policy
  stcs   : `st.global.X` -> `st.global.cs.X` (evict-first stores)
  csboth : both
A device experiment, not part of the compiler.
"""
import re, sys
src, dst, mode = sys.argv[1:4]
loads = mode in ("cs", "csboth")
stores = mode in ("stcs", "csboth")
out = []
for line in open(src):
    s = line
    if loads:
        if line.rstrip("\n") == "{":
            out.append(line)
            out.append("\t.reg .b64 %pol;\n\tcreatepolicy.fractional.L2::evict_first.b64 %pol, 1.0;\n")
            continue
        s = s.replace("ld.global.nc.", "ld.global.cs.nc.")
        m = re.match(r"(\s*(?:@!?%p\d+\s+)?)cp\.async\.cg\.shared\.global\s+(.*);(.*)$", s)
        if m:
            s = f"{m.group(1)}cp.async.cg.shared.global.L2::cache_hint {m.group(2)}, %pol;{m.group(3)}\n"
    if stores:
        s = re.sub(r"\bst\.global\.", "st.global.cs.", s)
    out.append(s)
open(dst, "w").write("".join(out))
