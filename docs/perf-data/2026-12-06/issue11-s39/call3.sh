# Issue 11, thirty-ninth session, call 3 (the committed build, 64d22fb): compute-sanitizer
# memcheck and racecheck of the one new code path, a row kernel's partial with the run-time
# split beside a standalone partial that keeps its fixed split and a merged final over both
# (row_col_stats compiled for 16384 x 16384, the `gpu` pipeline, run at 1031 x 16384), then
# one A/B round against main before the session (1e00a8b, .device-bin/old, "o") at five of
# calls 1-2's shapes, four of whose plan splits differ from the build those calls timed.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s39/call3.sh
DEADLINE=${DEADLINE:-170} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ab_list --runs 100 <<'LIST'
logsoftmax_bwd_colsum M=100003,N=100
rmsnorm_bwd_f32 M=100003,N=100
colmax_rowsum M=65536,N=200
softmax_fwd_colsum M=262144,N=64
layernorm_bwd M=16384,N=8192
LIST
sanitize rcs-mixed row_col_stats M=1031,N=16384 M=16384,N=16384
finish
