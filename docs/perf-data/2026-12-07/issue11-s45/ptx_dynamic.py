"""A hand-cut variant of a cooperative row kernel's PTX (morf-opt --emit=ptx) whose split loop
takes its splits from a work counter instead of a fixed stride (forty-fifth session, call 2):
each CTA starts at split %ctaid.x as emitted; thread 0 then takes the next ticket with an
atomic add on a global counter, the CTA reads it through shared memory behind a barrier, and
split = %nctaid.x + ticket. A split's partial row is the same sum whichever CTA computes it,
so the bits stay the emitted kernel's. CTA 0 sets the counter back to 0 after the grid
barrier, when no CTA takes tickets any more.
    python3 ptx_dynamic.py IN.ptx OUT.ptx
"""
import re
import sys

src, dst = sys.argv[1], sys.argv[2]
L = open(src).read().split('\n')
# The split index starts at %ctaid.x (as a 64-bit copy).
ci = next(i for i, l in enumerate(L) if '%ctaid.x;' in l)
r32 = re.search(r'mov\.u32 (%r\d+), %ctaid\.x;', L[ci]).group(1)
c64 = next(re.search(r'cvt\.u64\.u32 (%rd\d+), ' + re.escape(r32) + ';', l).group(1)
           for l in L[ci:ci + 3] if 'cvt.u64.u32' in l)
edits = 0
for i, l in enumerate(L):
    m = re.match(r'\tmov\.b64 (%rd\d+), ' + re.escape(c64) + ';$', l)
    if not m or not L[i + 1].startswith('$L'):
        continue
    a, head = m.group(1), L[i + 1].rstrip(':')
    for j in range(i + 2, len(L) - 1):
        n = re.match(r'\tadd\.s64 ' + re.escape(a) + ', ' + re.escape(a) + r', (%rd\d+);$', L[j])
        if n and L[j + 1].strip() == f'bra {head};':
            L[j] = ('\t{ .reg .pred %pw; .reg .u32 %rw, %rt; .reg .u64 %rw64;\n'
                    '\tmov.u32 %rt, %tid.x; setp.eq.u32 %pw, %rt, 0;\n'
                    '\t@%pw atom.add.relaxed.gpu.global.u32 %rw, [morf_dyn_ctr], 1;\n'
                    '\t@%pw st.shared.u32 [morf_dyn_slot], %rw;\n'
                    '\tbar.sync 0;\n'
                    '\tld.shared.u32 %rw, [morf_dyn_slot];\n'
                    '\tbar.sync 0;\n'
                    f'\tcvt.u64.u32 %rw64, %rw; add.s64 {a}, %rw64, {n.group(1)}; }}')
            edits += 1
            break
    break  # the first split loop only (the fast form's)
assert edits == 1, 'no split loop found'
# The reset, after the grid barrier's spin (its second fence), by CTA 0's thread 0 (the
# only thread there).
k = next(i for i, l in enumerate(L) if 'atom.add.relaxed.gpu.global.u32' in l and 'grid_barrier' not in l
         and any('_grid_barrier' in L[j] for j in range(i - 3, i)))
f = next(i for i in range(k, len(L)) if 'fence.acq_rel.gpu;' in L[i])
L[f] += ('\n\t{ .reg .pred %pz; .reg .u32 %rz; mov.u32 %rz, %ctaid.x; setp.eq.u32 %pz, %rz, 0;\n'
         '\t@%pz st.relaxed.gpu.global.u32 [morf_dyn_ctr], 0; }')
# The counter and the ticket's shared slot, beside the grid barrier's word.
g = next(i for i, l in enumerate(L) if l.startswith('.global') and '_grid_barrier' in l)
L[g] += '\n.global .align 4 .u32 morf_dyn_ctr;\n.shared .align 4 .u32 morf_dyn_slot;'
open(dst, 'w').write('\n'.join(L))
print(src, '->', dst, 'split loop at', i, 'reset after', f)
