# Issue 11, forty-sixth session, call 6 (not run here: the session's device time was spent):
# `lower-loop-to-gpu{min-ctas=estimate}` (the row kernel planned for every CTA its register
# estimate leaves resident, without the quarter margin) against the default plan,
# at the example shapes whose plan it changes (tools/scripts/schedule_diff.sh with the margin
# lifted for kernels of a warp a row or less: about 60). Two rounds alternating, the first
# `estimate` run of each shape checked against fp64. If it wins broadly, make it the default
# for warp-a-row kernels (and say where it loses).
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s46/call6.sh
# It ran, its commands unchanged, as the forty-seventh session's call 1, which holds them now:
exec bash docs/perf-data/2026-12-07/issue11-s47/call1.sh
