// RUN: morf-opt %s --split-input-file --verify-diagnostics

// Ids are 'index'.
mgpu.func @id_type() kernel {
  // expected-error@+1 {{'mgpu.thread_id' op result #0 ('thread_id') must be an 'index', got 'i64'}}
  %t = "mgpu.thread_id"() : () -> i64
  mgpu.return
}

// -----

// A load's index is 'index'.
mgpu.func @load_index(%p: !mgpu.ptr<f32>, %i: f32) kernel {
  // expected-error@+1 {{'mgpu.load' op operand #1 ('index') must be an 'index', got 'f32'}}
  %v = "mgpu.load"(%p, %i) : (!mgpu.ptr<f32>, f32) -> f32
  mgpu.return
}

// -----

// A load reads through a pointer.
mgpu.func @load_ptr(%p: f32, %i: index) kernel {
  // expected-error@+1 {{'mgpu.load' op operand #0 ('ptr') must be a '!mgpu.ptr', got 'f32'}}
  %v = "mgpu.load"(%p, %i) : (f32, index) -> f32
  mgpu.return
}

// -----

// A load yields the pointer's element type.
mgpu.func @load_result(%p: !mgpu.ptr<bf16>, %i: index) kernel {
  // expected-error@+1 {{'mgpu.load' op result has type 'f32', but the pointer's element type is 'bf16'}}
  %v = "mgpu.load"(%p, %i) : (!mgpu.ptr<bf16>, index) -> f32
  mgpu.return
}

// -----

// The cache-streaming hint is a unit attribute.
mgpu.func @load_stream(%p: !mgpu.ptr<f32>, %i: index) kernel {
  // expected-error@+1 {{'mgpu.load' op attribute 'stream' must be a unit attribute, got 1}}
  %v = mgpu.load %p[%i] {stream = 1 : i64} : !mgpu.ptr<f32>
  mgpu.return
}

// -----

// A store writes the pointer's element type.
mgpu.func @store_value(%p: !mgpu.ptr<bf16>, %i: index, %v: f32) kernel {
  // expected-error@+1 {{'mgpu.store' op stored value has type 'f32', but the pointer's element type is 'bf16'}}
  "mgpu.store"(%v, %p, %i) : (f32, !mgpu.ptr<bf16>, index) -> ()
  mgpu.return
}

// -----

// Vector widths are 2, 4 or 8.
mgpu.func @load_vec_width(%p: !mgpu.ptr<f32>, %i: index) kernel {
  // expected-error@+1 {{'mgpu.load_vec' op vector width must be 2, 4 or 8, got 3}}
  %a, %b, %c = mgpu.load_vec %p[%i] : !mgpu.ptr<f32> -> f32, f32, f32
  mgpu.return
}

// -----

// A vector access moves at most 16 bytes.
mgpu.func @load_vec_bytes(%p: !mgpu.ptr<f32>, %i: index) kernel {
  // expected-error@+1 {{'mgpu.load_vec' op a vector of 8 x 'f32' is 32 bytes, more than 16}}
  %a, %b, %c, %d, %e, %f, %g, %h = mgpu.load_vec %p[%i] : !mgpu.ptr<f32> -> f32, f32, f32, f32, f32, f32, f32, f32
  mgpu.return
}

// -----

// Every result of a vector load has the element type.
mgpu.func @load_vec_types(%p: !mgpu.ptr<f32>, %i: index) kernel {
  // expected-error@+1 {{'mgpu.load_vec' op result #1 has type 'f16', but the pointer's element type is 'f32'}}
  %a, %b = mgpu.load_vec %p[%i] : !mgpu.ptr<f32> -> f32, f16
  mgpu.return
}

// -----

mgpu.func @store_vec_types(%p: !mgpu.ptr<bf16>, %i: index, %a: bf16, %b: f32) kernel {
  // expected-error@+1 {{'mgpu.store_vec' op stored value #1 has type 'f32', but the pointer's element type is 'bf16'}}
  "mgpu.store_vec"(%a, %b, %p, %i) : (bf16, f32, !mgpu.ptr<bf16>, index) -> ()
  mgpu.return
}

// -----

// Shared memory comes as a pointer in address space 3.
mgpu.func @shared_space() kernel {
  // expected-error@+1 {{'mgpu.shared_alloc' op result #0 ('ptr') must be a shared-memory pointer ('!mgpu.ptr<T, 3>'), got '!mgpu.ptr<f32>'}}
  %s = mgpu.shared_alloc {size = 4 : i64} : !mgpu.ptr<f32>
  mgpu.return
}

// -----

mgpu.func @shared_size() kernel {
  // expected-error@+1 {{'mgpu.shared_alloc' op requires a positive integer attribute 'size' (in elements)}}
  %s = mgpu.shared_alloc {size = 0 : i64} : !mgpu.ptr<f32, 3>
  mgpu.return
}

// -----

// Only address space 3 is a parameter.
// expected-error@+1 {{'!mgpu.ptr' takes at most one parameter, the address space 3 (shared memory)}}
mgpu.func @bad_space(%p: !mgpu.ptr<f32, 5>) kernel {
  mgpu.return
}

// -----

// The barrier belongs in a kernel.
func.func @barrier_outside() {
  // expected-error@+1 {{'mgpu.barrier' op must be nested in an 'mgpu.func'}}
  mgpu.barrier
  return
}

// -----

// So does the warp barrier.
func.func @warp_barrier_outside() {
  // expected-error@+1 {{'mgpu.warp_barrier' op must be nested in an 'mgpu.func'}}
  mgpu.warp_barrier
  return
}

// -----

func.func @shuffle_outside(%v: f32, %o: index) -> f32 {
  // expected-error@+1 {{'mgpu.shuffle' op must be nested in an 'mgpu.func'}}
  %r = mgpu.shuffle xor %v, %o : f32
  return %r : f32
}

// -----

mgpu.func @shuffle_mode(%v: f32, %o: index) kernel {
  // expected-error@+1 {{'mgpu.shuffle' op unknown shuffle mode 'left'; expected one of xor, down, up, idx}}
  %r = mgpu.shuffle left %v, %o : f32
  mgpu.return
}

// -----

mgpu.func @shuffle_offset(%v: f32, %o: f32) kernel {
  // expected-error@+1 {{'mgpu.shuffle' op operand #1 ('offset') must be an 'index', got 'f32'}}
  %r = "mgpu.shuffle"(%v, %o) {mode = "xor"} : (f32, f32) -> f32
  mgpu.return
}

// -----

mgpu.func @warp_reduce_kind(%v: f32) kernel {
  // expected-error@+1 {{'mgpu.warp_reduce' op unknown combiner 'prod'; expected one of sum, max, min}}
  %r = mgpu.warp_reduce prod %v : f32
  mgpu.return
}

// -----

mgpu.func @warp_reduce_width(%v: f32) kernel {
  // expected-error@+1 {{'mgpu.warp_reduce' op 'width' must be an integer among 1, 2, 4, 8, 16 and 32}}
  %r = mgpu.warp_reduce sum %v {width = 12} : f32
  mgpu.return
}

// -----

mgpu.func @warp_reduce_type(%v: f32) kernel {
  // expected-error@+1 {{'mgpu.warp_reduce' op result type 'f16' does not match the value type 'f32'}}
  %r = "mgpu.warp_reduce"(%v) {kind = "sum"} : (f32) -> f16
  mgpu.return
}

// -----

// `mgpu.return` ends an `mgpu.func`.
func.func @return_outside() {
  // expected-error@+1 {{'mgpu.return' op expects parent op 'mgpu.func'}}
  mgpu.return
}

// -----

// `mgpu.yield` matches the results of its `mgpu.if`.
mgpu.func @yield_types(%c: i1, %a: f32, %b: f16) kernel {
  %r = mgpu.if %c -> (f32) {
    mgpu.yield %a : f32
  } else {
    // expected-error@+1 {{'mgpu.yield' op yields (f16), but the parent 'mgpu.if' has result types (f32)}}
    mgpu.yield %b : f16
  }
  mgpu.return
}

// -----

mgpu.func @if_cond(%c: index) kernel {
  // expected-error@+1 {{'mgpu.if' op operand #0 ('condition') must be an 'i1', got 'index'}}
  "mgpu.if"(%c) ({
    mgpu.yield
  }, {
  }) : (index) -> ()
  mgpu.return
}

// -----

mgpu.func @if_else(%c: i1, %a: f32) kernel {
  // expected-error@+1 {{'mgpu.if' op must have an 'else' region when it has results}}
  %r = mgpu.if %c -> (f32) {
    mgpu.yield %a : f32
  }
  mgpu.return
}

// -----

// Kernels return nothing.
// expected-error@+1 {{'mgpu.func' op must have no results, but its type has 1}}
"mgpu.func"() ({
^bb0(%a: f32):
  mgpu.return
}) {function_type = (f32) -> f32, kernel, sym_name = "k"} : () -> ()

// -----

// Kernel names are unique in the module.
mgpu.func @dup() kernel {
  mgpu.return
}
// expected-error@+1 {{redefinition of symbol named 'dup'}}
mgpu.func @dup() kernel {
  mgpu.return
}

// -----

// An occupancy question names an existing kernel.
func.func @resident_missing(%c: index) {
  // expected-error@+1 {{'mgpu.resident_blocks' op 'nope' does not reference an 'mgpu.func'}}
  %r = mgpu.resident_blocks @nope threads(%c) shared(%c)
  return
}

// -----

mgpu.func @device_fn() {
  mgpu.return
}
func.func @resident_device(%c: index) {
  // expected-error@+1 {{'mgpu.resident_blocks' op '@device_fn' is not a kernel (it lacks the 'kernel' keyword)}}
  %r = mgpu.resident_blocks @device_fn threads(%c) shared(%c)
  return
}

// -----

// A launch names an existing kernel.
func.func @launch_missing(%c: index) {
  // expected-error@+1 {{'mgpu.launch' op 'nope' does not reference an 'mgpu.func'}}
  mgpu.launch @nope blocks(%c) threads(%c) shared(%c) args()
  return
}

// -----

mgpu.func @device() {
  mgpu.return
}
func.func @launch_device(%c: index) {
  // expected-error@+1 {{'mgpu.launch' op '@device' is not a kernel (it lacks the 'kernel' keyword)}}
  mgpu.launch @device blocks(%c) threads(%c) shared(%c) args()
  return
}

// -----

mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  mgpu.return
}
func.func @launch_count(%c: index, %b: !mloop.buffer<?xf32>) {
  // expected-error@+1 {{'mgpu.launch' op passes 1 argument, but '@k' takes 2}}
  mgpu.launch @k blocks(%c) threads(%c) shared(%c) args(%b) : !mloop.buffer<?xf32>
  return
}

// -----

mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  mgpu.return
}
func.func @launch_elem(%c: index, %b: !mloop.buffer<?xbf16>) {
  // expected-error@+1 {{'mgpu.launch' op argument #0 has type '!mloop.buffer<?xbf16>', but parameter #0 of '@k' ('!mgpu.ptr<f32>') needs a '!mloop.buffer' of element type 'f32'}}
  mgpu.launch @k blocks(%c) threads(%c) shared(%c) args(%b, %c) : !mloop.buffer<?xbf16>, index
  return
}

// -----

mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  mgpu.return
}
func.func @launch_index(%c: index, %b: !mloop.buffer<?xf32>, %f: f32) {
  // expected-error@+1 {{'mgpu.launch' op argument #1 has type 'f32', but parameter #1 of '@k' ('index') needs 'index'}}
  mgpu.launch @k blocks(%c) threads(%c) shared(%c) args(%b, %f) : !mloop.buffer<?xf32>, f32
  return
}

// -----

func.func @launch_sizes(%c: index, %f: f32) {
  // expected-error@+1 {{'mgpu.launch' op operand #1 ('threads') must be an 'index', got 'f32'}}
  "mgpu.launch"(%c, %f, %c) {kernel = @k} : (index, f32, index) -> ()
  return
}

// -----

// The pointer of a vector store follows the values.
mgpu.func @store_vec_ptr(%a: f32, %b: f32, %i: index) kernel {
  // expected-error@+1 {{'mgpu.store_vec' op operand #2 ('ptr') must be a '!mgpu.ptr', got 'f32'}}
  "mgpu.store_vec"(%a, %b, %a, %i) : (f32, f32, f32, index) -> ()
  mgpu.return
}

// -----

// Warp ops move scalars.
mgpu.func @warp_reduce_scalar(%p: !mgpu.ptr<f32>) kernel {
  // expected-error@+1 {{'mgpu.warp_reduce' op operand #0 ('value') must be a scalar, got '!mgpu.ptr<f32>'}}
  %r = "mgpu.warp_reduce"(%p) {kind = "sum"} : (!mgpu.ptr<f32>) -> !mgpu.ptr<f32>
  mgpu.return
}

// -----

func.func @launch_no_kernel(%c: index) {
  // expected-error@+1 {{'mgpu.launch' op requires attribute 'kernel'}}
  "mgpu.launch"(%c, %c, %c) : (index, index, index) -> ()
  return
}

// -----

// expected-error@+1 {{'mgpu.func' op attribute 'max_threads' must be an integer, got "many"}}
mgpu.func @bounds() kernel attributes {max_threads = "many"} {
  mgpu.return
}

// -----

// Atomic kinds are add, max and min.
mgpu.func @atomic_kind(%p: !mgpu.ptr<f32>, %v: f32, %i: index) kernel {
  // expected-error@+1 {{'mgpu.atomic_rmw' op unknown atomic kind 'mul'; expected one of add, max, min}}
  %o = "mgpu.atomic_rmw"(%v, %p, %i) {kind = "mul"} : (f32, !mgpu.ptr<f32>, index) -> f32
  mgpu.return
}

// -----

mgpu.func @atomic_no_kind(%p: !mgpu.ptr<f32>, %v: f32, %i: index) kernel {
  // expected-error@+1 {{'mgpu.atomic_rmw' op requires attribute 'kind'}}
  %o = "mgpu.atomic_rmw"(%v, %p, %i) : (f32, !mgpu.ptr<f32>, index) -> f32
  mgpu.return
}

// -----

// Atomics update global memory only.
mgpu.func @atomic_shared(%v: f32, %i: index) kernel {
  %s = mgpu.shared_alloc {size = 32 : i64} : !mgpu.ptr<f32, 3>
  // expected-error@+1 {{'mgpu.atomic_rmw' op requires a global pointer, got '!mgpu.ptr<f32, 3>' (shared-memory atomics are not supported)}}
  %o = mgpu.atomic_rmw add %v, %s[%i] : !mgpu.ptr<f32, 3>
  mgpu.return
}

// -----

mgpu.func @atomic_bf16(%p: !mgpu.ptr<bf16>, %v: bf16, %i: index) kernel {
  // expected-error@+1 {{'mgpu.atomic_rmw' op atomic elements must be 'f32', 'f64' or 'index', got 'bf16'}}
  %o = mgpu.atomic_rmw add %v, %p[%i] : !mgpu.ptr<bf16>
  mgpu.return
}

// -----

mgpu.func @atomic_value_type(%p: !mgpu.ptr<f32>, %v: f64, %i: index) kernel {
  // expected-error@+1 {{'mgpu.atomic_rmw' op value has type 'f64', but the pointer's element type is 'f32'}}
  %o = "mgpu.atomic_rmw"(%v, %p, %i) {kind = "add"} : (f64, !mgpu.ptr<f32>, index) -> f32
  mgpu.return
}

// -----

mgpu.func @atomic_result_type(%p: !mgpu.ptr<f32>, %v: f32, %i: index) kernel {
  // expected-error@+1 {{'mgpu.atomic_rmw' op result has type 'f64', but the pointer's element type is 'f32'}}
  %o = "mgpu.atomic_rmw"(%v, %p, %i) {kind = "max"} : (f32, !mgpu.ptr<f32>, index) -> f64
  mgpu.return
}

// -----

mgpu.func @atomic_ptr(%p: f32, %v: f32, %i: index) kernel {
  // expected-error@+1 {{'mgpu.atomic_rmw' op operand #1 ('ptr') must be a '!mgpu.ptr', got 'f32'}}
  %o = "mgpu.atomic_rmw"(%v, %p, %i) {kind = "add"} : (f32, f32, index) -> f32
  mgpu.return
}

// -----

func.func @atomic_outside(%p: !mgpu.ptr<f32>, %v: f32, %i: index) {
  // expected-error@+1 {{'mgpu.atomic_rmw' op must be nested in an 'mgpu.func'}}
  %o = mgpu.atomic_rmw add %v, %p[%i] : !mgpu.ptr<f32>
  return
}

// -----

// An asynchronous copy goes from global to shared memory.
mgpu.func @copy_async_from_shared(%i: index) kernel {
  %s = mgpu.dynamic_shared : !mgpu.ptr<f32, 3>
  // expected-error@+1 {{'mgpu.copy_async' op the source must be a global pointer, got '!mgpu.ptr<f32, 3>'}}
  mgpu.copy_async %s[%i], %s[%i] {width = 4 : i64} : !mgpu.ptr<f32, 3>, !mgpu.ptr<f32, 3>
  mgpu.return
}

// -----

mgpu.func @copy_async_to_global(%g: !mgpu.ptr<f32>, %i: index) kernel {
  // expected-error@+1 {{'mgpu.copy_async' op operand #0 ('dst') must be a shared-memory pointer ('!mgpu.ptr<T, 3>'), got '!mgpu.ptr<f32>'}}
  mgpu.copy_async %g[%i], %g[%i] {width = 4 : i64} : !mgpu.ptr<f32>, !mgpu.ptr<f32>
  mgpu.return
}

// -----

mgpu.func @copy_async_types(%g: !mgpu.ptr<bf16>, %i: index) kernel {
  %s = mgpu.dynamic_shared : !mgpu.ptr<f32, 3>
  // expected-error@+1 {{'mgpu.copy_async' op copies 'bf16' elements into 'f32' elements; the element types must match}}
  mgpu.copy_async %s[%i], %g[%i] {width = 2 : i64} : !mgpu.ptr<f32, 3>, !mgpu.ptr<bf16>
  mgpu.return
}

// -----

// cp.async moves 4, 8 or 16 bytes.
mgpu.func @copy_async_width(%g: !mgpu.ptr<bf16>, %i: index) kernel {
  %s = mgpu.dynamic_shared : !mgpu.ptr<bf16, 3>
  // expected-error@+1 {{'mgpu.copy_async' op 'width' = 1 elements of 'bf16' is 2 bytes; a copy is 4, 8 or 16 bytes}}
  mgpu.copy_async %s[%i], %g[%i] {width = 1 : i64} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
  mgpu.return
}

// -----

mgpu.func @copy_async_wait_pending() kernel {
  // expected-error@+1 {{'mgpu.copy_async_wait' op requires an integer attribute 'pending' in 0..=7, got 8}}
  mgpu.copy_async_wait {pending = 8 : i64}
  mgpu.return
}

// -----

// The planned CTAs per SM are 1 to 32.
// expected-error@+1 {{'mgpu.func' op expects 'min_ctas_per_sm' to be an integer in 0..=32}}
mgpu.func @min_ctas() kernel attributes {max_threads = 256, min_ctas_per_sm = 33} {
  mgpu.return
}

// -----

// A planned bound marks a bound: `min_ctas_planned` needs a nonzero `min_ctas_per_sm`.
// expected-error@+1 {{'mgpu.func' op has 'min_ctas_planned' but no 'min_ctas_per_sm' bound (1..=32) that it plans}}
mgpu.func @planned_without_bound() kernel attributes {max_threads = 256, min_ctas_planned} {
  mgpu.return
}

// -----

// expected-error@+1 {{'mgpu.func' op has 'min_ctas_planned' but no 'min_ctas_per_sm' bound (1..=32) that it plans}}
mgpu.func @planned_no_bound() kernel attributes {max_threads = 256, min_ctas_per_sm = 0, min_ctas_planned} {
  mgpu.return
}

// -----

// A register cap is 16 to 255 registers a thread (PTX `.maxnreg`).
// expected-error@+1 {{'mgpu.func' op expects 'max_registers' to be an integer in 16..=255}}
mgpu.func @max_registers() kernel attributes {max_threads = 256, max_registers = 300} {
  mgpu.return
}

// -----

// `contract_fma` is a unit attribute (present or absent).
// expected-error@+1 {{'mgpu.func' op attribute 'contract_fma' must be a unit attribute, got 3}}
mgpu.func @contract() kernel attributes {contract_fma = 3 : i64} {
  mgpu.return
}

// -----

// A grid barrier belongs to a cooperative kernel.
mgpu.func @grid_barrier_not_cooperative() kernel {
  // expected-error@+1 {{'mgpu.grid_barrier' op requires its 'mgpu.func' to be 'cooperative'}}
  mgpu.grid_barrier
  mgpu.return
}

// -----

// Every thread reaches a grid barrier exactly once: it stands directly in the kernel's body.
mgpu.func @grid_barrier_nested(%c: i1) kernel attributes {cooperative} {
  mgpu.if %c {
    // expected-error@+1 {{'mgpu.grid_barrier' op must stand directly in the body of a cooperative 'mgpu.func' (not nested in a loop or an 'mgpu.if')}}
    mgpu.grid_barrier
    mgpu.yield
  }
  mgpu.return
}

// -----

// Static shared memory is at most 48 KiB a block (found by the fuzzer: the simulator tried to
// allocate it).
mgpu.func @shared_too_big() kernel {
  // expected-error@+1 {{'mgpu.shared_alloc' op 'size' = 12289 elements of 4 bytes exceeds the 49152 bytes of static shared memory a block may have}}
  %s = mgpu.shared_alloc {size = 12289} : !mgpu.ptr<f32, 3>
  mgpu.return
}

// -----

// Cluster ops need a kernel launched in clusters.
mgpu.func @no_cluster() kernel {
  // expected-error@+1 {{'mgpu.cluster_wait' op requires its 'mgpu.func' to have a 'cluster' of 2 or more CTAs}}
  mgpu.cluster_wait
  mgpu.return
}

// -----

// expected-error@+1 {{'mgpu.func' op expects 'cluster' to be an integer in 1..=8}}
mgpu.func @cluster_too_big() kernel attributes {cluster = 16} {
  mgpu.return
}

// -----

// expected-error@+1 {{'mgpu.func' op cannot be both 'cooperative' and launched in clusters ('cluster')}}
mgpu.func @cluster_cooperative() kernel attributes {cluster = 2, cooperative} {
  mgpu.return
}

// -----

mgpu.func @cluster_store_type(%v: f64) kernel attributes {cluster = 2} {
  %s = mgpu.shared_alloc {size = 2} : !mgpu.ptr<f32, 3>
  %c0 = mloop.constant 0 : index
  // expected-error@+1 {{use of value '%v' expects different type than prior uses: 'f32' vs 'f64'}}
  mgpu.cluster_store %v, %s[%c0], %c0 : !mgpu.ptr<f32, 3>
  mgpu.return
}

// -----

mgpu.func @cluster_store_global(%v: f32, %g: !mgpu.ptr<f32>) kernel attributes {cluster = 2} {
  %c0 = mloop.constant 0 : index
  // expected-error@+1 {{'mgpu.cluster_store' op operand #1 ('ptr') must be a shared-memory pointer ('!mgpu.ptr<T, 3>')}}
  mgpu.cluster_store %v, %g[%c0], %c0 : !mgpu.ptr<f32>
  mgpu.return
}

// -----

// A grid tail belongs to a resident-grid kernel.
mgpu.func @grid_tail_not_resident() kernel attributes {cooperative} {
  // expected-error@+1 {{'mgpu.grid_tail' op requires its 'mgpu.func' to be 'resident_grid'}}
  %r, %n = mgpu.grid_tail {ctas = 2 : i64}
  mgpu.return
}

// -----

mgpu.func @grid_tail_no_ctas() kernel attributes {resident_grid} {
  // expected-error@+1 {{'mgpu.grid_tail' op 'ctas' must be at least 1, got 0}}
  %r, %n = mgpu.grid_tail {ctas = 0 : i64}
  mgpu.return
}

// -----

// The blocks that go on past a grid tail may be any blocks of the launch: what they use from
// before it must be the same in every block.
mgpu.func @grid_tail_block_value(%a: !mgpu.ptr<f32>) kernel attributes {resident_grid} {
  %b = mgpu.block_id : index
  %c1 = mloop.constant 1 : index
  %i = mloop.add %b, %c1 : index
  // expected-note@+1 {{the grid tail is here}}
  %r, %n = mgpu.grid_tail {ctas = 2 : i64}
  %x = mloop.constant 1.0 : f32
  // expected-error@+1 {{'mgpu.store' op uses a value from before 'mgpu.grid_tail' that may differ between blocks (the block that goes on may be any block of the launch)}}
  mgpu.store %x, %a[%i] : !mgpu.ptr<f32>
  mgpu.return
}

// -----

mgpu.func @grid_tail_nested(%c: i1) kernel attributes {resident_grid} {
  mgpu.if %c {
    // expected-error@+1 {{'mgpu.grid_tail' op must stand directly in the body of a resident_grid 'mgpu.func' (not nested in a loop or an 'mgpu.if')}}
    %r, %n = mgpu.grid_tail {ctas = 2 : i64}
    mgpu.yield
  }
  mgpu.return
}

// -----

// A work loop's counter is the kernel's: each block takes its last ticket once a launch, so
// no loop around it.
mgpu.func @work_loop_in_loop(%n: index) kernel {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  mloop.for %k = %c0 to %n step %c1 {
    // expected-error@+1 {{'mgpu.work_loop' op must stand in its kernel's body or in 'mgpu.if's only, not in 'mloop.for'}}
    mgpu.work_loop %i to %n {
      mgpu.yield
    }
    mloop.yield
  }
  mgpu.return
}

// -----

mgpu.func @work_loop_twice(%n: index) kernel {
  // expected-error@+1 {{'mgpu.work_loop' op is one of 2 in its kernel, which holds one at most (the counter is the kernel's)}}
  mgpu.work_loop %i to %n {
    mgpu.yield
  }
  mgpu.work_loop %j to %n {
    mgpu.yield
  }
  mgpu.return
}

// -----

mgpu.func @work_loop_cluster(%n: index) kernel attributes {cluster = 2} {
  // expected-error@+1 {{'mgpu.work_loop' op must not be in a clustered kernel (a cluster's blocks would take different iterations)}}
  mgpu.work_loop %i to %n {
    mgpu.yield
  }
  mgpu.return
}

// -----

mgpu.func @work_loop_yield(%n: index) kernel {
  mgpu.work_loop %i to %n {
    %x = mloop.constant 1.0 : f32
    // expected-error@+1 {{'mgpu.yield' op yields values, but the parent 'mgpu.work_loop' has no results}}
    mgpu.yield %x : f32
  }
  mgpu.return
}
