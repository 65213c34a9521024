// Ops without a PTX lowering are diagnostics at the op, never a crash.
// RUN: morf-opt %s --emit=ptx --split-input-file --verify-diagnostics

mgpu.func @exp_f64(%x: !mgpu.ptr<f64>) kernel {
  %t = mgpu.thread_id : index
  %a = mgpu.load %x[%t] : !mgpu.ptr<f64>
  // expected-error@+1 {{'mloop.exp' op cannot be emitted to PTX: not supported on f64 in PTX emission yet}}
  %e = mloop.exp %a : f64
  mgpu.store %e, %x[%t] : !mgpu.ptr<f64>
  mgpu.return
}

// -----

mgpu.func @tanh_f64(%x: !mgpu.ptr<f64>) kernel {
  %t = mgpu.thread_id : index
  %a = mgpu.load %x[%t] : !mgpu.ptr<f64>
  // expected-error@+1 {{'mloop.tanh' op cannot be emitted to PTX: not supported on f64 in PTX emission yet}}
  %e = mloop.tanh %a : f64
  mgpu.store %e, %x[%t] : !mgpu.ptr<f64>
  mgpu.return
}

// -----

mgpu.func @flag(%x: !mgpu.ptr<f32>, %p: i1) kernel {
  mgpu.return
}
// expected-error@-3 {{'mgpu.func' op cannot be emitted to PTX: kernel parameter #1 has type 'i1'; only global pointers, 'index' and floats are supported}}

// -----

mgpu.func @erf_f64(%x: !mgpu.ptr<f64>) kernel {
  %t = mgpu.thread_id : index
  %a = mgpu.load %x[%t] : !mgpu.ptr<f64>
  // expected-error@+1 {{'mloop.erf' op cannot be emitted to PTX: not supported on f64 in PTX emission yet}}
  %e = mloop.erf %a : f64
  mgpu.store %e, %x[%t] : !mgpu.ptr<f64>
  mgpu.return
}
