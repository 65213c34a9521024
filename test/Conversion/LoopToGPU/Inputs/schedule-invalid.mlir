// Malformed or inapplicable morf.schedule attributes (used by ../schedule-in-ir.mlir).

func.func @copy(%a: !mloop.buffer<?xf32>) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?xf32>
  %c1 = mloop.constant 1 : index
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // expected-error@+1 {{'morf.schedule' mapping "row_reduction" does not apply to this nest (lower-loop-to-gpu maps it as "thread_per_point")}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %v = mloop.load %a[%i] : !mloop.buffer<?xf32>
    mloop.store %v, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = {mapping = "row_reduction", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 8, threads = 256, threads_per_row = 32, vector = 4}}
  func.return %y : !mloop.buffer<?xf32>
}

// -----

func.func @rowsum(%a: !mloop.buffer<?x?xf32>) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // expected-error@+1 {{'morf.schedule' has an unknown mapping "warp_per_row"}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %a[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = {mapping = "warp_per_row", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 8, threads = 256, threads_per_row = 32, vector = 4}}
  func.return %y : !mloop.buffer<?xf32>
}

// -----

func.func @rowsum(%a: !mloop.buffer<?x?xf32>) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // expected-error@+1 {{'morf.schedule' entry 'threads' must be in [32, 1024], got 2048}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %a[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = {mapping = "row_reduction", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 8, threads = 2048, threads_per_row = 32, vector = 4}}
  func.return %y : !mloop.buffer<?xf32>
}

// -----

func.func @rowsum(%a: !mloop.buffer<?x?xf32>) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // expected-error@+1 {{'morf.schedule' entry 'threads' must be a multiple of 32, got 100}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %a[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = {mapping = "row_reduction", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 8, threads = 100, threads_per_row = 32, vector = 4}}
  func.return %y : !mloop.buffer<?xf32>
}

// -----

func.func @rowsum(%a: !mloop.buffer<?x?xf32>) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // expected-error@+1 {{rows_per_cta x threads_per_row (16 x 32) exceeds threads (256)}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %a[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = {mapping = "row_reduction", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 16, threads = 256, threads_per_row = 32, vector = 4}}
  func.return %y : !mloop.buffer<?xf32>
}

// -----

func.func @rowsum(%a: !mloop.buffer<?x?xf32>) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // expected-error@+1 {{'morf.schedule' lacks the entry 'vector'}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %a[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = {mapping = "row_reduction", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 8, threads = 256, threads_per_row = 32}}
  func.return %y : !mloop.buffer<?xf32>
}

// -----

func.func @rowsum(%a: !mloop.buffer<?x?xf32>) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // expected-error@+1 {{'morf.schedule' has an unknown entry 'colour'}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %a[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = {mapping = "row_reduction", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 8, threads = 256, threads_per_row = 32, vector = 4, colour = "red"}}
  func.return %y : !mloop.buffer<?xf32>
}

// -----

func.func @rowsum(%a: !mloop.buffer<?x?xf32>) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // expected-error@+1 {{partials = "shared" needs mapping "row_fused"}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %a[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = {mapping = "row_reduction", max_grid = 1056, partials = "shared", rows_in_flight_per_warp = 1, rows_per_cta = 8, threads = 256, threads_per_row = 32, vector = 4}}
  func.return %y : !mloop.buffer<?xf32>
}

// -----

func.func @rowsum(%a: !mloop.buffer<?x?xf32>) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // expected-error@+1 {{'morf.schedule' entry 'threads' must be an integer}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %a[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = {mapping = "row_reduction", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 8, threads = "many", threads_per_row = 32, vector = 4}}
  func.return %y : !mloop.buffer<?xf32>
}

// -----

func.func @rowsum(%a: !mloop.buffer<?x?xf32>) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // expected-error@+1 {{'morf.schedule' must be a dictionary attribute}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %a[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = "row_reduction"}
  func.return %y : !mloop.buffer<?xf32>
}

// -----

func.func @rowsum(%a: !mloop.buffer<?x?xf32>) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // expected-error@+1 {{'morf.schedule' of a "split_partial" mapping lacks the entry 'final'}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %a[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = {mapping = "split_partial", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 1, split_rows = 64, threads = 256, threads_per_row = 1, vector = 4}}
  func.return %y : !mloop.buffer<?xf32>
}

// -----

func.func @copy(%a: !mloop.buffer<?xf32>) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?xf32>
  %c1 = mloop.constant 1 : index
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // expected-error@+1 {{'morf.schedule' mapping "block_reduction" does not apply to this nest}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %v = mloop.load %a[%i] : !mloop.buffer<?xf32>
    mloop.store %v, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = {mapping = "block_reduction", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 1, threads = 256, threads_per_row = 256, vector = 4}}
  func.return %y : !mloop.buffer<?xf32>
}

// -----

// Staged rows need the register-resident ("fast") form of a row-fused kernel.
func.func @rowsum_staged(%a: !mloop.buffer<?x?xf32>) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // expected-error@+1 {{'morf.schedule' entry 'staged_rows' needs a "fast" row_fused schedule}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %a[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = {mapping = "row_reduction", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 8, staged_rows = 4, threads = 256, threads_per_row = 32, vector = 4}}
  func.return %y : !mloop.buffer<?xf32>
}

// -----

// A final reduction's threads_per_row is its columns per CTA: 8, 16 or 32.
func.func @colsum_final_tile(%a: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %c0 = mloop.constant 0 : index
  %y = mloop.alloc(%n) : !mloop.buffer<?xf32>
  // expected-error@+1 {{'threads_per_row' of a "final_reduction" (lanes a row segment) must be 1, 2, 4, 8, 16 or 32, got 12}}
  mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
    %r = mloop.reduce sum (%i) = (%c0) to (%m) step (%c1) init(%z) : f32 {
      %v = mloop.load %a[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %y[%j] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {morf.schedule = {final = {mapping = "final_reduction", max_grid = 528, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 2, threads = 64, threads_per_row = 12, vector = 4}, mapping = "split_partial", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 1, split_rows = 3, threads = 256, threads_per_row = 1, vector = 4}}
  func.return %y : !mloop.buffer<?xf32>
}
