// --size-hints gives size hints to every pass of a pipeline that takes them (each pass
// that declares a size-hints option, as the pass registry says), so a named pipeline
// specializes for real shapes without the whole --pass-pipeline text.
//
// The named pipeline with --size-hints gives the same IR as the explicit pipeline text:
// RUN: morf-opt %s --pipeline=gpu --size-hints M=576000,N=384 -o %t.named
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=576000,N=384},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=576000,N=384})' -o %t.text
// RUN: diff %t.named %t.text
// ... and the hints matter: without them the schedule differs.
// RUN: morf-opt %s --pipeline=gpu -o %t.plain
// RUN: not diff -q %t.named %t.plain
// --size-hints=... works too, and so does --pass-pipeline with --size-hints:
// RUN: morf-opt %s --pipeline=gpu --size-hints=M=576000,N=384 | diff - %t.named
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)' --size-hints M=576000,N=384 | diff - %t.named
// A size-hints option written in the pipeline text wins over the flag:
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=576000,N=384},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=576000,N=384})' --size-hints M=8,N=8 | diff - %t.named
// The hints show in the pipeline (the fusion pass prints its options):
// RUN: morf-opt %s --pipeline=fuse --size-hints M=576000,N=384 --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck --check-prefix=DUMP %s
// DUMP: fuse-mixed-reductions{{.*}} size-hints=M=576000,N=384 splits
//
// A pipeline with no pass that takes size hints runs as usual, with a warning:
// RUN: morf-opt %s --cse --size-hints M=4 2>&1 >/dev/null | FileCheck --check-prefix=WARN %s
// RUN: morf-opt %s --cse --size-hints M=4 -o /dev/null
// WARN: morf-opt: warning: --size-hints: no pass of the pipeline takes size hints, so they change nothing (passes that do: fuse-mixed-reductions, gpu-choose-schedule, lower-loop-to-gpu)
//
// --list-passes says which passes of each named pipeline take the hints:
// RUN: morf-opt --list-passes | FileCheck --check-prefix=LIST %s
// LIST: {{^}}  gpu {{.*}}
// LIST-NEXT: = builtin.module(
// LIST-NEXT: --size-hints go to: fuse-mixed-reductions, lower-loop-to-gpu

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
