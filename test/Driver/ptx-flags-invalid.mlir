// The values of --ptx-version and --ptx-target are pasted into the PTX header: anything but
// MAJOR.MINOR and sm_N[a-z] is an error before any input is read, never injected text (issue 8).
// RUN: not morf-opt %s --emit=ptx --ptx-version=$'8.0\n.target sm_50' 2>&1 | FileCheck --check-prefix=VERSION %s
// RUN: not morf-opt %s --emit=ptx --ptx-version=8 2>&1 | FileCheck --check-prefix=VERSION8 %s
// RUN: not morf-opt %s --emit=ptx --ptx-target='sm_90 // x' 2>&1 | FileCheck --check-prefix=TARGET %s
// RUN: not morf-opt %s --emit=ptx --ptx-target=$'sm_90\n.entry evil()' 2>&1 | FileCheck --check-prefix=TARGETNL %s
// RUN: not morf-opt %s --emit=ptx --ptx-target=compute_90 2>&1 | FileCheck --check-prefix=COMPUTE %s
// RUN: morf-opt %s --emit=ptx --ptx-version=7.8 --ptx-target=sm_90a | FileCheck --check-prefix=OK %s

// VERSION: morf-opt: error: invalid PTX version '8.0\n.target sm_50': expected MAJOR.MINOR, such as '8.0'
// VERSION8: morf-opt: error: invalid PTX version '8': expected MAJOR.MINOR, such as '8.0'
// TARGET: morf-opt: error: invalid PTX target 'sm_90 // x': expected 'sm_' and a number, such as 'sm_90'
// TARGETNL: morf-opt: error: invalid PTX target 'sm_90\n.entry evil()': expected 'sm_' and a number, such as 'sm_90'
// COMPUTE: morf-opt: error: invalid PTX target 'compute_90'
// OK: .version 7.8
// OK-NEXT: .target sm_90a
// OK: .visible .entry k(

mgpu.func @k(%p: !mgpu.ptr<f32>) kernel {
  %t = mgpu.thread_id : index
  %v = mgpu.load %p[%t] : !mgpu.ptr<f32>
  mgpu.store %v, %p[%t] : !mgpu.ptr<f32>
  mgpu.return
}
