// RUN: morf-opt %s --split-input-file --verify-diagnostics

// Index operands have type 'index'.
func.func @load_index_type(%b: !mloop.buffer<4xf32>, %i: f32) {
  // expected-error@+1 {{'mloop.load' op operand #1 ('indices') must be an 'index', got 'f32'}}
  %v = "mloop.load"(%b, %i) : (!mloop.buffer<4xf32>, f32) -> f32
  return
}

// -----

func.func @for_bound_type(%lb: index, %ub: f32, %s: index) {
  // expected-error@+1 {{'mloop.for' op operand #1 ('upper_bound') must be an 'index', got 'f32'}}
  "mloop.for"(%lb, %ub, %s) ({
  ^bb0(%i: index):
    "mloop.yield"() : () -> ()
  }) : (index, f32, index) -> ()
  return
}

// -----

func.func @for_iv_type(%c: index) {
  // expected-error@+1 {{'mloop.for' op induction variable #0 must be of type 'index', got 'f32'}}
  "mloop.for"(%c, %c, %c) ({
  ^bb0(%i: f32):
    "mloop.yield"() : () -> ()
  }) : (index, index, index) -> ()
  return
}

// -----

func.func @parallel_step_type(%c: index, %s: i1) {
  // expected-error@+1 {{'mloop.parallel' op step #0 must be of type 'index', got 'i1'}}
  "mloop.parallel"(%c, %c, %s) ({
  ^bb0(%i: index):
    "mloop.yield"() : () -> ()
  }) : (index, index, i1) -> ()
  return
}

// -----

func.func @alloc_size_type(%n: f32) {
  // expected-error@+1 {{'mloop.alloc' op operand #0 ('sizes') must be an 'index', got 'f32'}}
  %b = "mloop.alloc"(%n) : (f32) -> !mloop.buffer<?xf32>
  return
}

// -----

// load, store and accumulate take one index per buffer dim.
func.func @load_rank(%b: !mloop.buffer<?x?xf32>, %i: index) {
  // expected-error@+1 {{'mloop.load' op expects 2 index operands, one per buffer dim, but got 1}}
  %v = mloop.load %b[%i] : !mloop.buffer<?x?xf32>
  return
}

// -----

func.func @store_rank(%b: !mloop.buffer<f32>, %i: index, %v: f32) {
  // expected-error@+1 {{'mloop.store' op expects 0 index operands, one per buffer dim, but got 1}}
  mloop.store %v, %b[%i] : !mloop.buffer<f32>
  return
}

// -----

func.func @accumulate_rank(%b: !mloop.buffer<?x4xf32>, %i: index, %v: f32) {
  // expected-error@+1 {{'mloop.accumulate' op expects 2 index operands, one per buffer dim, but got 3}}
  mloop.accumulate sum %v, %b[%i, %i, %i] : !mloop.buffer<?x4xf32>
  return
}

// -----

// A constant index into a static dim must be in range.
func.func @load_constant_oob(%b: !mloop.buffer<?x4xf32>) {
  %c0 = mloop.constant 0 : index
  %c4 = mloop.constant 4 : index
  // expected-error@+1 {{'mloop.load' op constant index 4 is out of range for dim 1 of size 4}}
  %v = mloop.load %b[%c0, %c4] : !mloop.buffer<?x4xf32>
  return
}

// -----

func.func @store_constant_negative(%b: !mloop.buffer<4xf32>, %v: f32) {
  %c = mloop.constant -1 : index
  // expected-error@+1 {{'mloop.store' op constant index -1 is out of range for dim 0 of size 4}}
  mloop.store %v, %b[%c] : !mloop.buffer<4xf32>
  return
}

// -----

// Stored and accumulated values have the buffer's element type.
func.func @store_type(%b: !mloop.buffer<4xbf16>, %i: index, %v: f32) {
  // expected-error@+1 {{'mloop.store' op stored value type 'f32' does not match the buffer element type 'bf16'}}
  "mloop.store"(%v, %b, %i) : (f32, !mloop.buffer<4xbf16>, index) -> ()
  return
}

// -----

func.func @accumulate_type(%b: !mloop.buffer<4xf32>, %i: index, %v: bf16) {
  // expected-error@+1 {{'mloop.accumulate' op accumulated value type 'bf16' does not match the buffer element type 'f32'}}
  "mloop.accumulate"(%v, %b, %i) {kind = "sum"} : (bf16, !mloop.buffer<4xf32>, index) -> ()
  return
}

// -----

func.func @fill_type(%b: !mloop.buffer<4xf32>, %v: f64) {
  // expected-error@+1 {{'mloop.fill' op fill value type 'f64' does not match the buffer element type 'f32'}}
  "mloop.fill"(%v, %b) : (f64, !mloop.buffer<4xf32>) -> ()
  return
}

// -----

func.func @load_result_type(%b: !mloop.buffer<4xf32>, %i: index) {
  // expected-error@+1 {{'mloop.load' op result type 'f64' does not match the buffer element type 'f32'}}
  %v = "mloop.load"(%b, %i) : (!mloop.buffer<4xf32>, index) -> f64
  return
}

// -----

// alloc takes one size per dynamic dim.
func.func @alloc_sizes(%n: index) {
  // expected-error@+1 {{'mloop.alloc' op expects 1 size operand, one per dynamic dim, but got 2}}
  %b = mloop.alloc(%n, %n) : !mloop.buffer<?x4xf32>
  return
}

// -----

// The yield of a loop matches its results.
func.func @for_yield_type(%c: index, %z: f32) {
  %r = mloop.for %i = %c to %c step %c iter_args(%a = %z) -> (f32) {
    // expected-error@+1 {{'mloop.yield' op yields (index), but the parent 'mloop.for' expects its result types (f32)}}
    mloop.yield %i : index
  }
  return
}

// -----

func.func @for_yield_count(%c: index, %z: f32) {
  %r = mloop.for %i = %c to %c step %c iter_args(%a = %z) -> (f32) {
    // expected-error@+1 {{'mloop.yield' op yields (), but the parent 'mloop.for' expects its result types (f32)}}
    mloop.yield
  }
  return
}

// -----

func.func @parallel_yield(%c: index, %z: f32) {
  mloop.parallel (%i) = (%c) to (%c) step (%c) {
    // expected-error@+1 {{'mloop.yield' op yields (f32), but the parent 'mloop.parallel' expects its result types ()}}
    mloop.yield %z : f32
  }
  return
}

// -----

// ... or the init type for reduce.
func.func @reduce_yield_type(%c: index, %z: f32, %h: bf16) {
  %r = mloop.reduce sum (%i) = (%c) to (%c) step (%c) init(%z) : f32 {
    // expected-error@+1 {{'mloop.yield' op yields (bf16), but the parent 'mloop.reduce' expects its init type (f32)}}
    mloop.yield %h : bf16
  }
  return
}

// -----

func.func @for_init_result(%c: index, %z: f32) {
  // expected-error@+1 {{'mloop.for' op type of init #0 ('f32') does not match result #0 ('f64')}}
  %r = "mloop.for"(%c, %c, %c, %z) ({
  ^bb0(%i: index, %a: f32):
    "mloop.yield"(%a) : (f32) -> ()
  }) : (index, index, index, f32) -> f64
  return
}

// -----

func.func @for_body_args(%c: index, %z: f32) {
  // expected-error@+1 {{'mloop.for' op expects 2 body arguments (the induction variable and one per init), but got 1}}
  %r = "mloop.for"(%c, %c, %c, %z) ({
  ^bb0(%i: index):
    "mloop.yield"(%z) : (f32) -> ()
  }) : (index, index, index, f32) -> f32
  return
}

// -----

// parallel and reduce have equal numbers of lower bounds, upper bounds and steps.
func.func @parallel_bounds(%c: index) {
  // expected-error@+1 {{'mloop.parallel' op expects equal numbers of lower bounds, upper bounds and steps, one per induction variable (2 each, 6 operands in all), but got 5 bound operands}}
  "mloop.parallel"(%c, %c, %c, %c, %c) ({
  ^bb0(%i: index, %j: index):
    "mloop.yield"() : () -> ()
  }) : (index, index, index, index, index) -> ()
  return
}

// -----

func.func @reduce_bounds(%c: index, %z: f32) {
  // expected-error@+1 {{'mloop.reduce' op expects equal numbers of lower bounds, upper bounds and steps, one per induction variable (1 each, 3 operands in all), but got 4 bound operands}}
  %r = "mloop.reduce"(%c, %c, %c, %c, %z) ({
  ^bb0(%i: index):
    "mloop.yield"(%z) : (f32) -> ()
  }) {kind = "sum"} : (index, index, index, index, f32) -> f32
  return
}

// -----

func.func @parallel_custom_bounds(%c: index) {
  // expected-error@+1 {{expected equal numbers of induction variables, lower bounds, upper bounds and steps, got 2, 2, 1 and 2}}
  mloop.parallel (%i, %j) = (%c, %c) to (%c) step (%c, %c) {
    mloop.yield
  }
  return
}

// -----

// No use of a buffer after its dealloc in the same block ...
func.func @use_after_dealloc(%n: index) -> f32 {
  %c0 = mloop.constant 0 : index
  %b = mloop.alloc(%n) : !mloop.buffer<?xf32>
  // expected-note@+1 {{deallocated here}}
  mloop.dealloc %b : !mloop.buffer<?xf32>
  // expected-error@+1 {{'mloop.load' op uses a buffer after its 'mloop.dealloc'}}
  %v = mloop.load %b[%c0] : !mloop.buffer<?xf32>
  return %v : f32
}

// -----

// ... including uses nested in later ops ...
func.func @use_after_dealloc_nested(%n: index, %z: f32) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %b = mloop.alloc(%n) : !mloop.buffer<?xf32>
  // expected-note@+1 {{deallocated here}}
  mloop.dealloc %b : !mloop.buffer<?xf32>
  mloop.for %i = %c0 to %n step %c1 {
    // expected-error@+1 {{'mloop.store' op uses a buffer after its 'mloop.dealloc'}}
    mloop.store %z, %b[%i] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return
}

// -----

func.func @return_after_dealloc() -> !mloop.buffer<4xf32> {
  %b = mloop.alloc() : !mloop.buffer<4xf32>
  // expected-note@+1 {{deallocated here}}
  mloop.dealloc %b : !mloop.buffer<4xf32>
  // expected-error@+1 {{'func.return' op uses a buffer after its 'mloop.dealloc'}}
  return %b : !mloop.buffer<4xf32>
}

// -----

// ... and no double dealloc.
func.func @double_dealloc() {
  %b = mloop.alloc() : !mloop.buffer<4xf32>
  // expected-note@+1 {{deallocated here}}
  mloop.dealloc %b : !mloop.buffer<4xf32>
  // expected-error@+1 {{'mloop.dealloc' op deallocates a buffer that is already deallocated}}
  mloop.dealloc %b : !mloop.buffer<4xf32>
  return
}

// -----

// Attributes: combiners, predicates, dims.
func.func @accumulate_kind(%b: !mloop.buffer<4xf32>, %i: index, %v: f32) {
  // expected-error@+1 {{'mloop.accumulate' op unknown combiner 'mean'; expected one of sum, max, min, prod}}
  mloop.accumulate mean %v, %b[%i] : !mloop.buffer<4xf32>
  return
}

// -----

func.func @reduce_kind(%c: index, %z: f32) {
  // expected-error@+1 {{'mloop.reduce' op unknown combiner 'avg'; expected one of sum, max, min, prod}}
  %r = mloop.reduce avg (%i) = (%c) to (%c) step (%c) init(%z) : f32 {
    mloop.yield %z : f32
  }
  return
}

// -----

func.func @cmp_predicate(%a: f32) {
  // expected-error@+1 {{'mloop.cmp' op unknown predicate 'olt'; expected one of eq, ne, lt, le, gt, ge}}
  %p = mloop.cmp olt, %a, %a : f32
  return
}

// -----

func.func @dim_range(%b: !mloop.buffer<?x?xf32>) {
  // expected-error@+1 {{'mloop.dim' op dim index 2 is out of range for a buffer of rank 2}}
  %d = mloop.dim %b, 2 : !mloop.buffer<?x?xf32>
  return
}

// -----

// Scalar operand types.
func.func @rem_float(%a: f32) {
  // expected-error@+1 {{'mloop.rem' op operand #0 ('lhs') must be an 'index', got 'f32'}}
  %r = mloop.rem %a, %a : f32
  return
}

// -----

func.func @pow_index(%a: index) {
  // expected-error@+1 {{'mloop.pow' op operands must have a float type, got 'index'}}
  %r = mloop.pow %a, %a : index
  return
}

// -----

func.func @exp_index(%a: index) {
  // expected-error@+1 {{'mloop.exp' op operand #0 ('input') must be a float, got 'index'}}
  %r = mloop.exp %a : index
  return
}

// -----

func.func @add_i1(%a: i1) {
  // expected-error@+1 {{'mloop.add' op operand #0 ('lhs') must be a float or 'index', got 'i1'}}
  %r = mloop.add %a, %a : i1
  return
}

// -----

func.func @add_mixed(%a: f32, %b: f64) {
  // expected-error@+1 {{'mloop.add' op requires the same type for all operands and results ('f32' vs 'f64')}}
  %r = "mloop.add"(%a, %b) : (f32, f64) -> f32
  return
}

// -----

func.func @select_cond(%c: f32, %a: f32) {
  // expected-error@+1 {{'mloop.select' op operand #0 ('condition') must be an 'i1', got 'f32'}}
  %r = "mloop.select"(%c, %a, %a) : (f32, f32, f32) -> f32
  return
}

// -----

func.func @convert_to_index(%a: f32) {
  // expected-error@+1 {{'mloop.convert' op result #0 ('result') must be a float, got 'index'}}
  %r = mloop.convert %a : f32 to index
  return
}

// -----

func.func @constant_type() {
  // expected-error@+1 {{'mloop.constant' op 'value' 1.5 does not fit result type 'f32'}}
  %c = "mloop.constant"() {value = 1.5} : () -> f32
  return
}

// -----

func.func @constant_buffer_type() {
  // expected-error@+1 {{'mloop.constant_buffer' op type of 'value' ('tensor<3xf32>') does not match the result shape and element type ('!mloop.buffer<2xf32>')}}
  %k = "mloop.constant_buffer"() {value = dense<1.0> : tensor<3xf32>} : () -> !mloop.buffer<2xf32>
  return
}

// -----

// expected-error@+1 {{'!mloop.buffer' element type must be f16, bf16, f32, f64 or i1, got 'i32'}}
func.func @buffer_elem(%b: !mloop.buffer<4xi32>) {
  return
}

// -----

func.func @yield_parent(%a: f32) {
  // expected-error@+1 {{'mloop.yield' op expects parent op 'mloop.for', 'mloop.parallel' or 'mloop.reduce'}}
  mloop.yield %a : f32
}

// -----

func.func @resident_programs_zero() {
  // expected-error@+1 {{'mloop.resident_programs' op expects 'assumed' to be a positive integer, got 0}}
  %r = mloop.resident_programs {assumed = 0} : index
  return
}
