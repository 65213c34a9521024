// --tuning-cache (docs/tuning.md): morf-opt takes the committed H200 cache's schedule for a
// program, bucket and device it has an entry for (every M of the bucket gets the same program),
// and says when it has none; a malformed cache is a located error with exit code 1 before any
// input is read. morf-run checks its cache and its --ptx file the same way.
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=576000,N=384 --tuning-cache builtin --schedule-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=TUNED
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=1000003,N=384 --tuning-cache builtin -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUCKET
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=4096,N=384 --tuning-cache builtin -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNTUNED
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=576000,N=384 --tuning-cache builtin --tuning-device 'NVIDIA A100:108' -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=576000,N=384 --tuning-cache none --tuning-device 'NVIDIA H200:132' --emit=ptx 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: morf-opt --help | FileCheck %s --check-prefix=HELP
// RUN: not morf-opt %S/../../examples/rmsnorm_bwd.mlir --pipeline=gpu --tuning-cache %S/Inputs/unknown-option-tuning-cache.json 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not morf-opt %S/../../examples/rmsnorm_bwd.mlir --tuning-cache %S/Inputs/no-such-cache.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not morf-opt %S/../../examples/rmsnorm_bwd.mlir --tuning-device 'X:1' 2>&1 | FileCheck %s --check-prefix=NODEV
// RUN: not morf-run %S/../../examples/rmsnorm_bwd.mlir --device sim --random M=4,N=8 --tuning-cache %S/Inputs/unknown-option-tuning-cache.json 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not morf-run %S/../../examples/rmsnorm_bwd.mlir --device sim --random M=4,N=8 --ptx %S/Inputs/no-such.ptx 2>&1 | FileCheck %s --check-prefix=NOPTX
// RUN: not morf-run %S/../../examples/rmsnorm_bwd.mlir --device interp --random M=4,N=8 --ptx %s 2>&1 | FileCheck %s --check-prefix=PTXGPU
// RUN: not morf-run %S/../../examples/rmsnorm_bwd.mlir --device sim --random M=4,N=8 --ptx %s 2>&1 | FileCheck %s --check-prefix=PTXGPU
// TUNED: note: @rmsnorm_bwd: tuned schedule for bucket M~2^19,N=384 on NVIDIA H200: fuse-mixed-reductions{partials=528 splits=256} lower-loop-to-gpu{interleave-splits=true rows-in-flight=1 threads-per-row=16}
// TUNED: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=16 {{.*}} partials=shared fast=yes(N=384 vector=8 chunks=3)
// BUCKET: note: @rmsnorm_bwd: tuned schedule for bucket M~2^19,N=384 on NVIDIA H200
// UNTUNED: note: @rmsnorm_bwd: no tuning entry for program {{[0-9a-f]+}}, pipeline 'gpu', bucket M~2^12,N=384 on NVIDIA H200 (132 SMs): the cost model decides
// DEVICE: no tuning entry for program {{.*}} on NVIDIA A100 (108 SMs): the cost model decides
// NONE-NOT: tuned schedule
// NONE: // morf.lowering: {{[0-9a-f]+}}
// NONE-EMPTY:
// NONE-NEXT: .version 8.0
// HELP: Tool flags:
// HELP-NEXT: --tuning-cache <builtin|none|FILE>
// HELP-NEXT: --tuning-device <NAME[:SMS]>
// OPTION: unknown-option-tuning-cache.json:5:{{[0-9]+}}: error: entry 0: options of 'lower-loop-to-gpu': pass 'lower-loop-to-gpu' has no option 'thread'
// MISSING: error: cannot read tuning cache {{.*}}no-such-cache.json
// NODEV: error: --tuning-device needs --tuning-cache
// NOPTX: error: cannot read {{.*}}no-such.ptx
// PTXGPU: error: --ptx loads kernels on a GPU: it needs --device gpu
