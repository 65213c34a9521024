// Search limits are never silent, and a small shared weight does not merge norms into one
// search group (issue 10, "search fixes").
//
// Three RMSNorm-backward-like norms share one weight vector %w[N]. The weight is read-only and
// lower-rank than the nests' M x N domains, so it connects nothing: three groups of three
// nests, each searched alone, each fused into a row kernel with partial column sums; the three
// finals, independent and over the same columns, are merged into one launch; no limit is hit
// and nothing is warned.
// RUN: morf-opt %s --lower-tensor-to-loop --fuse-mixed-reductions='size-hints=M=576000,N=384 report' \
// RUN:   2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: morf-opt %s --lower-tensor-to-loop --fuse-mixed-reductions='size-hints=M=576000,N=384' \
// RUN:   2>&1 | FileCheck %s --check-prefix=FUSED
// REPORT-NOT: warning
// REPORT: 9 nests in 3 groups
// REPORT: == group 0: nest0, nest1, nest2 ==
// REPORT: == group 1: nest3, nest4, nest5 ==
// REPORT: == group 2: nest6, nest7, nest8 ==
// REPORT: finals of 3 independent groups merged into one launch ({{.*}}): fused[final(nest2, S={{[0-9]+}}) + final(nest5, S={{[0-9]+}}) + final(nest8, S={{[0-9]+}})]
// REPORT-NOT: warning
// FUSED-NOT: warning
// FUSED-COUNT-3: kind = "row-fused"
// FUSED:       mloop.reduce sum
// FUSED:       mloop.reduce sum
// FUSED:       mloop.reduce sum
// FUSED:     kind = "final"
// FUSED-NOT: kind = "final"
// FUSED-NOT: warning
//
// The merged final is one `final_reduction` launch of three reductions, each over its own
// workspace, and every output agrees with the interpreter on the GPU simulator.
// RUN: morf-opt %s --pipeline=gpu --size-hints M=576000,N=384 --schedule-report -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCHED
// SCHED-COUNT-3: schedule: @{{[a-z0-9_]+}}: row_fused
// SCHED:         schedule: @{{[a-z0-9_]+}}: final_reduction
// SCHED-NOT:     schedule:
// RUN: morf-run %s --device sim --random M=37,N=100 --check --output-dir %t/sim 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SIM
// SIM: kernel launch{{(es)?}} on the GPU simulator
// SIM-COUNT-6: ok
// SIM-NOT: FAILED
//
// A node limit too small for the search: a warning at the first nest of the first group it
// stopped, naming the limit, its value and the option that raises it; the best plans found
// so far are still applied (row kernels), not the unfused program.
// RUN: morf-opt %s --lower-tensor-to-loop --fuse-mixed-reductions='size-hints=M=576000,N=384 max-nodes=60' \
// RUN:   2>&1 | FileCheck %s --check-prefix=NODES
// NODES: search-limits.mlir:[[@LINE+30]]:{{[0-9]+}}: warning: fuse-mixed-reductions: the search of 3 of the 3 nest groups of @norms stopped at the e-node limit (60 e-nodes) before exploring every plan; the best plan found so far is used (3 of 3 fused); raise the limit with the pass option 'max-nodes'
// NODES-COUNT-3: kind = "row-fused"
//
// The iteration limit and the time limit warn the same way.
// RUN: morf-opt %s --lower-tensor-to-loop --fuse-mixed-reductions='size-hints=M=576000,N=384 max-iterations=1' \
// RUN:   2>&1 | FileCheck %s --check-prefix=ITERS
// ITERS: warning: fuse-mixed-reductions: the search of 3 of the 3 nest groups of @norms stopped at the iteration limit (1 iterations) {{.*}}; raise the limit with the pass option 'max-iterations'
// ITERS-COUNT-3: kind = "row-fused"
// RUN: morf-opt %s --lower-tensor-to-loop --fuse-mixed-reductions='time-limit-ms=0' \
// RUN:   2>&1 | FileCheck %s --check-prefix=TIME
// TIME: warning: fuse-mixed-reductions: {{.*}} stopped at the time limit (0 ms) {{.*}}; raise the limit with the pass option 'time-limit-ms'

func.func @norms(%w: tensor<?xf32> {morf.dims = ["N"]},
    %x0: tensor<?x?xf32> {morf.dims = ["M", "N"]},
    %dy0: tensor<?x?xf32> {morf.dims = ["M", "N"]},
    %rstd0: tensor<?xf32> {morf.dims = ["M"], morf.random = "positive"},
    %x1: tensor<?x?xf32> {morf.dims = ["M", "N"]},
    %dy1: tensor<?x?xf32> {morf.dims = ["M", "N"]},
    %rstd1: tensor<?xf32> {morf.dims = ["M"], morf.random = "positive"},
    %x2: tensor<?x?xf32> {morf.dims = ["M", "N"]},
    %dy2: tensor<?x?xf32> {morf.dims = ["M", "N"]},
    %rstd2: tensor<?xf32> {morf.dims = ["M"], morf.random = "positive"})
    -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>) {
  %m = mtensor.dim %x0, 0 : tensor<?x?xf32>
  %n = mtensor.dim %x0, 1 : tensor<?x?xf32>
  %wb = mtensor.broadcast %w dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %rb0 = mtensor.broadcast %rstd0 dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xhat0 = mtensor.mul %x0, %rb0 : tensor<?x?xf32>
  %dyw0 = mtensor.mul %dy0, %wb : tensor<?x?xf32>
  %t0 = mtensor.mul %dyw0, %xhat0 : tensor<?x?xf32>
  %c0 = mtensor.reduce mean %t0 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cb0 = mtensor.broadcast %c0 dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xc0 = mtensor.mul %xhat0, %cb0 : tensor<?x?xf32>
  %d0 = mtensor.sub %dyw0, %xc0 : tensor<?x?xf32>
  %dx0 = mtensor.mul %rb0, %d0 : tensor<?x?xf32>
  %g0 = mtensor.mul %dy0, %xhat0 : tensor<?x?xf32>
  %dw0 = mtensor.reduce sum %g0 dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %rb1 = mtensor.broadcast %rstd1 dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xhat1 = mtensor.mul %x1, %rb1 : tensor<?x?xf32>
  %dyw1 = mtensor.mul %dy1, %wb : tensor<?x?xf32>
  %t1 = mtensor.mul %dyw1, %xhat1 : tensor<?x?xf32>
  %c1 = mtensor.reduce mean %t1 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cb1 = mtensor.broadcast %c1 dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xc1 = mtensor.mul %xhat1, %cb1 : tensor<?x?xf32>
  %d1 = mtensor.sub %dyw1, %xc1 : tensor<?x?xf32>
  %dx1 = mtensor.mul %rb1, %d1 : tensor<?x?xf32>
  %g1 = mtensor.mul %dy1, %xhat1 : tensor<?x?xf32>
  %dw1 = mtensor.reduce sum %g1 dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %rb2 = mtensor.broadcast %rstd2 dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xhat2 = mtensor.mul %x2, %rb2 : tensor<?x?xf32>
  %dyw2 = mtensor.mul %dy2, %wb : tensor<?x?xf32>
  %t2 = mtensor.mul %dyw2, %xhat2 : tensor<?x?xf32>
  %c2 = mtensor.reduce mean %t2 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cb2 = mtensor.broadcast %c2 dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xc2 = mtensor.mul %xhat2, %cb2 : tensor<?x?xf32>
  %d2 = mtensor.sub %dyw2, %xc2 : tensor<?x?xf32>
  %dx2 = mtensor.mul %rb2, %d2 : tensor<?x?xf32>
  %g2 = mtensor.mul %dy2, %xhat2 : tensor<?x?xf32>
  %dw2 = mtensor.reduce sum %g2 dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %dx0, %dw0, %dx1, %dw1, %dx2, %dw2 : tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>
}
