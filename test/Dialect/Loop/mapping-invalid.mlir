// RUN: morf-opt %s --split-input-file --verify-diagnostics

// Verifier errors of the GPU mapping attributes (dialects/loop/src/mapping.rs).

// A level must be one of grid, warp, lane, thread, seq.
func.func @unknown_level(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op 'mapping' entry #0: unknown level 'block'; expected one of grid, warp, lane, thread, seq}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.yield
  } attributes {mapping = [{level = "block"}]}
  return
}

// -----

func.func @not_dict(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op 'mapping' entry #0 must be a dictionary}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.yield
  } attributes {mapping = [4]}
  return
}

// -----

func.func @not_array(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op 'mapping' must be an array of dictionaries, one per induction variable}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.yield
  } attributes {mapping = "grid"}
  return
}

// -----

func.func @unknown_key(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op 'mapping' entry #0: unknown key 'tile'; expected level, persistent or size}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.yield
  } attributes {mapping = [{level = "grid", tile = 4}]}
  return
}

// -----

func.func @no_level(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op 'mapping' entry #0 has no 'level'}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.yield
  } attributes {mapping = [{persistent = true}]}
  return
}

// -----

func.func @persistent_thread(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op 'mapping' entry #0: 'persistent' applies to level 'grid' only}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.yield
  } attributes {mapping = [{level = "thread", persistent = true}]}
  return
}

// -----

// A lane level spans at most the 32 lanes of a warp.
func.func @lane_size(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op 'mapping' entry #1: a 'lane' level spans at most 32 lanes, got size 64}}
  mloop.parallel (%w, %l) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    mloop.yield
  } attributes {mapping = [{level = "warp"}, {level = "lane", size = 64}]}
  return
}

// -----

// At most 1024 threads per CTA.
func.func @threads_per_cta(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op 'mapping' entry #0: a 'thread' level spans at most 1024 threads, got size 2048}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.yield
  } attributes {mapping = [{level = "thread", size = 2048}]}
  return
}

// -----

func.func @warps_per_cta(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op 'mapping' entry #0: a 'warp' level spans at most 32 warps, got size 64}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.yield
  } attributes {mapping = [{level = "warp", size = 64}]}
  return
}

// -----

func.func @size_zero(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op 'mapping' entry #0: 'size' must be a positive integer}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.yield
  } attributes {mapping = [{level = "grid", size = 0}]}
  return
}

// -----

func.func @count(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op 'mapping' has 2 entries, but the loop has 1 induction variables}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.yield
  } attributes {mapping = [{level = "grid"}, {level = "thread"}]}
  return
}

// -----

// Nesting order: grid outside warp/thread outside lane.
func.func @lane_without_warp(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op invalid 'mapping': induction variable #1: level 'lane' must be nested inside a 'warp' level}}
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    mloop.yield
  } attributes {mapping = [{level = "thread"}, {level = "lane"}]}
  return
}

// -----

func.func @grid_inside(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op invalid 'mapping': induction variable #1: level 'grid' cannot be nested inside level 'warp'}}
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    mloop.yield
  } attributes {mapping = [{level = "warp"}, {level = "grid"}]}
  return
}

// -----

func.func @lane_first(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op invalid 'mapping': induction variable #0: level 'lane' must be nested inside a 'warp' level}}
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    mloop.yield
  } attributes {mapping = [{level = "lane"}, {level = "warp"}]}
  return
}

// -----

// Nested parallels are mapped consistently.
func.func @warp_in_thread(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    // expected-error@+1 {{'mloop.parallel' op invalid 'mapping': induction variable #0: level 'warp' cannot be nested inside level 'thread'}}
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.store %v, %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield
    } attributes {mapping = [{level = "warp"}]}
    mloop.yield
  } attributes {mapping = [{level = "thread"}]}
  return
}

// -----

func.func @grid_nested(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    // expected-error@+1 {{'mloop.parallel' op invalid 'mapping': induction variable #0: level 'grid' is only allowed in the top-level loop of a nest}}
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.store %v, %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield
    } attributes {mapping = [{level = "grid"}]}
    mloop.yield
  } attributes {mapping = [{level = "grid"}]}
  return
}

// -----

func.func @lane_in_grid(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    // expected-error@+1 {{'mloop.parallel' op invalid 'mapping': induction variable #0: level 'lane' must be nested inside a 'warp' level}}
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.store %v, %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield
    } attributes {mapping = [{level = "lane"}]}
    mloop.yield
  } attributes {mapping = [{level = "grid"}]}
  return
}

// -----

func.func @unmapped_outer(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    // expected-error@+1 {{'mloop.parallel' op is mapped but its enclosing 'mloop.parallel' is not}}
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.store %v, %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield
    } attributes {mapping = [{level = "thread"}]}
    mloop.yield
  }
  return
}

// -----

// A lane reduction runs on a whole warp, a thread reduction on a whole CTA.
func.func @lane_reduce_no_warp(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    // expected-error@+1 {{'mloop.reduce' op invalid 'mapping': a 'lane' reduction must be directly inside a 'warp' level}}
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    } attributes {mapping = [{level = "lane"}]}
    mloop.store %r, %x[%i, %c0] : !mloop.buffer<?x?xf32>
    mloop.yield
  } attributes {mapping = [{level = "grid"}]}
  return
}

// -----

func.func @thread_reduce_in_warp(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    // expected-error@+1 {{'mloop.reduce' op invalid 'mapping': a 'thread' reduction must run on a whole CTA (no 'warp', 'thread' or 'lane' level outside it)}}
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    } attributes {mapping = [{level = "thread"}]}
    mloop.store %r, %x[%i, %c0] : !mloop.buffer<?x?xf32>
    mloop.yield
  } attributes {mapping = [{level = "warp"}]}
  return
}

// -----

func.func @grid_reduce(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    // expected-error@+1 {{'mloop.reduce' op invalid 'mapping': an 'mloop.reduce' can be mapped to 'lane', 'thread' or 'seq', not 'grid'}}
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    } attributes {mapping = [{level = "grid"}]}
    mloop.store %r, %x[%i, %c0] : !mloop.buffer<?x?xf32>
    mloop.yield
  } attributes {mapping = [{level = "grid"}]}
  return
}

// -----

func.func @reduce_unmapped_outer(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    // expected-error@+1 {{'mloop.reduce' op is mapped but its enclosing 'mloop.parallel' is not}}
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    } attributes {mapping = [{level = "thread"}]}
    mloop.store %r, %x[%i, %c0] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  return
}

// -----

func.func @reduce_count(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    // expected-error@+1 {{'mloop.reduce' op 'mapping' has 2 entries, but the loop has 1 induction variables}}
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    } attributes {mapping = [{level = "thread"}, {level = "seq"}]}
    mloop.store %r, %x[%i, %c0] : !mloop.buffer<?x?xf32>
    mloop.yield
  } attributes {mapping = [{level = "grid"}]}
  return
}

// -----

// The optional vector width and rows in flight.
func.func @vector3(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op 'vector' must be a power of two from 1 to 16}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.yield
  } attributes {mapping = [{level = "grid"}], vector = 3 : i64}
  return
}

// -----

func.func @rif0(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-error@+1 {{'mloop.parallel' op 'rows_in_flight' must be a positive integer}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.yield
  } attributes {mapping = [{level = "grid"}], rows_in_flight = 0 : i64}
  return
}

// -----

// Two grid levels apart would split the grid twice (only some pairs would run).
func.func @grid_twice(%x: !mloop.buffer<?x?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  // expected-error@+1 {{'mloop.parallel' op invalid 'mapping': induction variable #2: level 'grid' cannot be nested inside level 'grid'}}
  mloop.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%m, %n, %n) step (%c1, %c1, %c1) {
    mloop.yield
  } attributes {mapping = [{level = "grid"}, {level = "seq"}, {level = "grid"}]}
  return
}
