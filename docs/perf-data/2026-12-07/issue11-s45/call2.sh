# Issue 11, forty-fifth session, call 2: (a) the new `lower-loop-to-gpu{dynamic-splits=true}`
# (each CTA's next split from a work counter, `mgpu.work_loop`) with `resident-splits=R`
# (R splits per resident CTA) against the same R with the fixed stride and against the
# default (a split a CTA), at short, mid and 1024-column rows; round 1 of the dynamic runs
# checked against fp64, the rest not; two rounds alternating. (b) Where the time of the
# default cooperative row kernel goes by phase: morf-opt's PTX against two hand-cut variants
# (`ptx_variants.py`: returning before the grid barrier, and right after it) through
# `morf-bench --ptx`, unchecked.
# Not run in the forty-fifth session (every device start after call 1 was refused, until the
# session's device time was spent): for the next one.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s45/call2.sh
# It ran, its commands unchanged, as the forty-sixth session's call 1, which holds them now:
exec bash docs/perf-data/2026-12-07/issue11-s46/call1.sh
