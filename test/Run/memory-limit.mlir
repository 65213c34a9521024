// morf-run estimates a run's memory (inputs and the interpreter's live values) before
// allocating anything, and refuses a run over the limit (--max-memory, or the memory
// available to the process) with an error naming the estimate and the limit, instead of
// aborting in the allocator ("memory allocation of 8000000000 bytes failed").
//
// RUN: not morf-run %S/../../examples/rmsnorm_bwd.mlir --random M=100000,N=10000 --max-memory 100M --output-dir %t 2>&1 | FileCheck %s
// RUN: not morf-run %S/../../examples/rmsnorm_bwd.mlir --random M=100000,N=10000 --max-memory 100M --device sim --output-dir %t 2>&1 | FileCheck %s
// RUN: not morf-run %S/../../examples/rmsnorm_bwd.mlir --random M=100000,N=10000 --max-memory 100M --device auto --output-dir %t 2>&1 | FileCheck %s
// RUN: not morf-run %S/../../examples/rmsnorm_bwd.mlir --random M=4,N=4 --max-memory 12Q 2>&1 | FileCheck --check-prefix=BAD %s
// RUN: morf-run %S/../../examples/rmsnorm_bwd.mlir --random M=4,N=4 --max-memory 64M --output-dir %t | FileCheck --check-prefix=OK %s
//
// CHECK: morf-run: error: this run needs about {{[0-9.]+}} GiB of memory ({{.*}}), more than the limit of 100.0 MiB (--max-memory); use smaller sizes or raise --max-memory
// BAD: morf-run: error: --max-memory: bad size '12Q': expected bytes or a number with K, M, G or T (e.g. 512M, 4G)
// OK: result0: tensor<?x?xbf16> [4, 4]
