# Issue 11, forty-seventh session, call 3 (not run: no device could be started for it; for the
# next session): the RMSNorm f32 row at 576000 x 384 with its cached options (`partials=resident`,
# `interleave-splits=true staged-rows=2`), as the cache holds it (`min-ctas=margin`: two CTAs
# a SM, as tuned) against the plan without the margin (three CTAs), two rounds alternating,
# round 1 of the plan checked against fp64; if three CTAs win, drop `min-ctas=margin` from that
# entry. Then the issue's bf16 table rows with the committed cache (unchecked) and Inductor's
# default in the same call (anchors.py, ONLY_INDUCTOR=1), and Inductor's default at the fp32
# rows.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s47/call3.sh
# It ran (its deadline raised, a tune for an H200 added at its end) as the forty-eighth
# session's call 1, which holds them now:
exec bash docs/perf-data/2026-12-07/issue11-s48/call1.sh
