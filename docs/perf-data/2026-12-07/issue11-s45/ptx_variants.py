"""Two hand-cut variants of a cooperative row kernel's PTX (morf-opt --emit=ptx), for timing
its phases (forty-fifth session, call 2): PREFIX.rows.ptx returns before the grid barrier
(the row phase and the partials' stores alone), PREFIX.barrier.ptx right after it (rows and
the grid barrier, no final). The return sits behind a predicate that is always true at run
time (%nctaid.y != 0) but unknown to ptxas, so the final's code stays and the register count,
hence the occupancy and the run-time grid, stay the base kernel's.
    python3 ptx_variants.py PREFIX.ptx
"""
import sys,re
base=sys.argv[1]; pre=base[:-4]
RET='\t{ .reg .pred %pq; .reg .u32 %rq; mov.u32 %rq, %nctaid.y; setp.ne.u32 %pq, %rq, 0; @%pq ret; }'
L=open(base).read().split('\n')
ia=[i for i,l in enumerate(L) if 'atom.add.relaxed.gpu.global.u32' in l and 'grid_barrier' not in l]
# the grid barrier's atom: the line before is fence, and before mov of _grid_barrier symbol
ia=[i for i in ia if any('_grid_barrier' in L[j] for j in range(i-3,i))]
assert len(ia)==1, ia
a=ia[0]
# A: before the bar.sync that precedes the barrier's tid test
j=a
while 'bar.sync 0;' not in L[j]: j-=1
A=L[:j]+[RET]+L[j:]
# B: after the bar.sync that follows the barrier's spin
k=a
while 'bar.sync 0;' not in L[k]: k+=1
B=L[:k+1]+[RET]+L[k+1:]
open(pre+'.rows.ptx','w').write('\n'.join(A))
open(pre+'.barrier.ptx','w').write('\n'.join(B))
print(base, 'A at', j, 'B at', k+1)
