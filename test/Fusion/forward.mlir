// The forward norms have row reductions only: no partials, no workspace. The row reduction,
// its per-row scalar (rstd) and the normalization share one row kernel, and the report says
// there is no pair of reductions to fuse.
// RUN: morf-opt %S/../../examples/rmsnorm_fwd.mlir --lower-tensor-to-loop \
// RUN:   --fuse-mixed-reductions='size-hints=M=576000,N=384 report' 2>%t.rms | FileCheck %s --check-prefix=RMS
// RUN: FileCheck %s --check-prefix=RMSREPORT < %t.rms
// RUN: morf-opt %S/../../examples/layernorm_fwd.mlir --lower-tensor-to-loop \
// RUN:   --fuse-mixed-reductions='size-hints=M=576000,N=384 device=launch=1e-3' | FileCheck %s --check-prefix=LN

// RMS-LABEL: func.func @rmsnorm_fwd
// RMS-NOT:     mloop.accumulate
// RMS-NOT:     mloop.fill
// RMS:         mloop.parallel (%[[I:.*]]) =
// RMS:           mloop.reduce sum
// RMS:           mloop.rsqrt
// RMS:           mloop.parallel (%[[J:.*]]) =
// RMS:             mloop.store %{{.*}}[%[[I]], %[[J]]]
// RMS:         } attributes {morf.kernel = {kind = "row-fused", {{(priced = "[^"]*", )?}}style = "persistent"}}
// RMS-NOT:     mloop.parallel
// RMS:         func.return

// RMSREPORT: chosen plan: rowfused.persistent[nest0 + nest1 + nest2]
// RMSREPORT: why not fused:
// RMSREPORT-NEXT: (fewer than two reductions)

// LayerNorm's variance reads the mean at the row: both reductions and the normalization can
// share one row kernel (test/Fusion/chained-row-reductions.mlir; `launch=1e-3` makes every
// legal fusion pay, so the check does not depend on how the cost model ranks the chain).
// LN-LABEL: func.func @layernorm_fwd
// LN-NOT:     mloop.accumulate
// LN-NOT:     kind = "reduction"
// LN:         attributes {morf.kernel = {kind = "row-fused", {{(priced = "[^"]*", )?}}style = "persistent"}}
// LN-NOT:     mloop.parallel
