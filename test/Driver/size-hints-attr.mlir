// Without --size-hints, a 'morf.size_hints' attribute on the module gives the hints to
// every pass of the pipeline that takes them; the flag, when given, wins.
//
// The attribute gives the same IR as the flag with the same hints:
// RUN: morf-opt %s --pipeline=gpu -o %t.attr
// RUN: morf-opt %s --pipeline=gpu --size-hints M=576000,N=384 | diff - %t.attr
// ... and as the explicit pipeline text:
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=576000,N=384},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=576000,N=384})' | diff - %t.attr
// The flag wins over the attribute:
// RUN: morf-opt %s --pipeline=gpu --size-hints M=8,N=8 -o %t.flag
// RUN: not diff -q %t.flag %t.attr
// RUN: morf-opt %s --pipeline=fuse --size-hints M=8,N=8 --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck --check-prefix=FLAG %s
// FLAG: size-hints=M=8,N=8
// FLAG-NOT: with the module's
// --dump-pass-pipeline shows the pipeline the module runs:
// RUN: morf-opt %s --pipeline=fuse --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck --check-prefix=DUMP %s
// DUMP: fuse-mixed-reductions{{.*}} size-hints= splits
// DUMP: fuse-mixed-reductions{{.*}} size-hints=M=576000,N=384 splits{{.*}} (with the module's morf.size_hints)
//
// morf-run honours the attribute the same way, over the shapes of the inputs:
// RUN: morf-run %s --device sim --random M=7,N=100 --check --output-dir %t/run -v 2>&1 | FileCheck --check-prefix=LOG %s
// RUN: morf-run %S/../../examples/rmsnorm_bwd.mlir --device sim --random M=7,N=100 --output-dir %t/shapes -v 2>&1 | FileCheck --check-prefix=SHAPES %s
// LOG-NOT: size-hints=M=7,N=100
// LOG: pipeline 'gpu': builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384 partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=576000,N=384})
// LOG: check result0: {{.*}} ok
// LOG: check result1: {{.*}} ok
// SHAPES: pipeline 'gpu': {{.*}}fuse-mixed-reductions{size-hints=M=7,N=100 partials=resident}
// ... and its --size-hints flag wins over both:
// RUN: morf-run %s --device sim --random M=7,N=100 --size-hints M=9,N=11 --output-dir %t/flag -v 2>&1 | FileCheck --check-prefix=RUNFLAG %s
// RUNFLAG: pipeline 'gpu': builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=9,N=11 partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=9,N=11})

module attributes {morf.size_hints = "M=576000,N=384"} {
func.func @rmsnorm_bwd(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                       %w: tensor<?xbf16> {morf.dims = ["N"]},
                       %dy: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                       %rstd: tensor<?xf32> {morf.dims = ["M"], morf.random = "positive"})
    -> (tensor<?x?xbf16>, tensor<?xbf16>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xbf16>
  %n = mtensor.dim %x, 1 : tensor<?x?xbf16>
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %wf = mtensor.convert %w : tensor<?xbf16> to tensor<?xf32>
  %dyf = mtensor.convert %dy : tensor<?x?xbf16> to tensor<?x?xf32>
  %wb = mtensor.broadcast %wf dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %rb = mtensor.broadcast %rstd dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  // xhat = x * rstd[:, None]
  %xhat = mtensor.mul %xf, %rb : tensor<?x?xf32>
  // c = mean_over_N(dy*w*xhat), one value per row
  %dyw = mtensor.mul %dyf, %wb : tensor<?x?xf32>
  %t = mtensor.mul %dyw, %xhat : tensor<?x?xf32>
  %c = mtensor.reduce mean %t dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cb = mtensor.broadcast %c dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  // dx = rstd * (dy*w - xhat*c)
  %xc = mtensor.mul %xhat, %cb : tensor<?x?xf32>
  %d = mtensor.sub %dyw, %xc : tensor<?x?xf32>
  %dxf = mtensor.mul %rb, %d : tensor<?x?xf32>
  // dw = sum_over_M(dy * xhat)
  %g = mtensor.mul %dyf, %xhat : tensor<?x?xf32>
  %dwf = mtensor.reduce sum %g dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %dx = mtensor.convert %dxf : tensor<?x?xf32> to tensor<?x?xbf16>
  %dw = mtensor.convert %dwf : tensor<?xf32> to tensor<?xbf16>
  return %dx, %dw : tensor<?x?xbf16>, tensor<?xbf16>
}
}
