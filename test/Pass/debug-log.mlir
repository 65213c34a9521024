// RUST_LOG=morf=debug logs every pass in its span: the op counts before and after, and the time.
// RUN: env RUST_LOG=morf=debug morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse)' -o /dev/null 2>&1 | FileCheck %s
// Without it, nothing.
// RUN: env -u RUST_LOG morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse)' -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET

// CHECK: pass{name="lower-tensor-to-loop"}: pass done ops_before={{[0-9]+}} ops_after={{[0-9]+}} time_us={{[0-9]+}}
// CHECK: pass{name="canonicalize"}: {{.*}}pass done ops_before={{[0-9]+}} ops_after={{[0-9]+}} time_us={{[0-9]+}}
// CHECK: pass{name="cse"}: {{.*}}pass done
// QUIET-NOT: pass done

func.func @f(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = mtensor.reduce sum %x dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}
