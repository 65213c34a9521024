//! The simulator through `mgpu.launch`: results, and run-time errors as diagnostics.

use std::cell::RefCell;
use std::rc::Rc;

use morf_ir::interp::{run_function, Array, RtValue};
use morf_ir::{Context, OpId};

fn setup(src: &str) -> (Context, OpId) {
    let mut ctx = Context::new();
    morf_loop::register(&mut ctx);
    morf_gpu::register(&mut ctx);
    let m = morf_ir::parse_source(&mut ctx, "t.mlir", src, 0).unwrap_or_else(|d| panic!("{}", d.message));
    morf_ir::verify(&ctx, m).unwrap_or_else(|d| panic!("{}", d.message));
    let f = morf_ir::builtin::lookup_function(&ctx, m, "main").expect("@main");
    (ctx, f)
}

fn buffer(ctx: &mut Context, data: Vec<f64>) -> (RtValue, Rc<RefCell<Array>>) {
    let f32t = ctx.f32_type();
    let a = Rc::new(RefCell::new(Array::new(vec![data.len()], data)));
    (RtValue::Buffer { elem: f32t, data: a.clone() }, a)
}

/// Runs `@main(%b: !mloop.buffer<?xf32>, %n: index)` on a buffer of `n` elements `0..n`;
/// returns the buffer after the run, or the rendered error.
fn run(src: &str, n: usize) -> Result<Vec<f64>, String> {
    let (mut ctx, f) = setup(src);
    let (b, a) = buffer(&mut ctx, (0..n).map(|i| i as f64).collect());
    match run_function(&ctx, f, vec![b, RtValue::Int(n as i64)]) {
        Ok(_) => Ok(a.borrow().data.clone()),
        Err(d) => Err(ctx.render(&d)),
    }
}

const HOST: &str = r#"
func.func @main(%b: !mloop.buffer<?xf32>, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %blocks = mloop.constant BLOCKS : index
  %threads = mloop.constant THREADS : index
  mgpu.launch @k blocks(%blocks) threads(%threads) shared(%c0) args(%b, %n) : !mloop.buffer<?xf32>, index
  return
}
"#;

fn program(kernel: &str, blocks: usize, threads: usize) -> String {
    let host = HOST.replace("BLOCKS", &blocks.to_string()).replace("THREADS", &threads.to_string());
    format!("{kernel}\n{host}")
}

#[test]
fn doubles_every_element() {
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %b = mgpu.block_id : index
  %bd = mgpu.block_dim : index
  %o = mloop.mul %b, %bd : index
  %i = mloop.add %o, %t : index
  %in = mloop.cmp lt, %i, %n : index
  mgpu.if %in {
    %v = mgpu.load %p[%i] : !mgpu.ptr<f32>
    %d = mloop.add %v, %v : f32
    mgpu.store %d, %p[%i] : !mgpu.ptr<f32>
    mgpu.yield
  }
  mgpu.return
}"#;
    let out = run(&program(k, 3, 64), 150).unwrap();
    assert_eq!(out, (0..150).map(|i| 2.0 * i as f64).collect::<Vec<_>>());
}

#[test]
fn barrier_under_divergence_is_an_error() {
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %c16 = mloop.constant 16 : index
  %lo = mloop.cmp lt, %t, %c16 : index
  mgpu.if %lo {
    mgpu.barrier
    mgpu.yield
  }
  mgpu.return
}"#;
    let e = run(&program(k, 1, 32), 32).unwrap_err();
    assert!(e.contains("'mgpu.barrier' op reached by only 16 of 32 threads of the block"), "{e}");
    assert!(e.contains("(thread 16, block 0)"), "{e}");
}

/// A warp hands values to other lanes through shared memory between warp barriers: lane `l`
/// writes `p[l]` to slot `31 - l`, and after the barrier reads its own slot, so each warp
/// reverses its 32 elements. The second warp of the block takes another branch (a warp
/// barrier needs its own warp's lanes only).
#[test]
fn warp_barrier_exchanges_within_each_warp() {
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %l = mgpu.lane_id : index
  %w = mgpu.warp_id : index
  %c0 = mloop.constant 0 : index
  %c31 = mloop.constant 31 : index
  %c32 = mloop.constant 32 : index
  %s = mgpu.shared_alloc {size = 64 : i64} : !mgpu.ptr<f32, 3>
  %base = mloop.mul %w, %c32 : index
  %v = mgpu.load %p[%t] : !mgpu.ptr<f32>
  %first = mloop.cmp eq, %w, %c0 : index
  mgpu.if %first {
    %r = mloop.sub %c31, %l : index
    %at = mloop.add %base, %r : index
    mgpu.store %v, %s[%at] : !mgpu.ptr<f32, 3>
    mgpu.warp_barrier
    %mine = mloop.add %base, %l : index
    %x = mgpu.load %s[%mine] : !mgpu.ptr<f32, 3>
    mgpu.warp_barrier
    mgpu.store %x, %p[%t] : !mgpu.ptr<f32>
    mgpu.yield
  }
  mgpu.return
}"#;
    let out = run(&program(k, 1, 64), 64).unwrap();
    let want: Vec<f64> = (0..32).rev().chain(32..64).map(|i| i as f64).collect();
    assert_eq!(out, want);
}

/// The same exchange without the first warp barrier: lane 0 reads slot 0, which lane 31
/// wrote with nothing ordering them. In lockstep the value is there; on a GPU it may not be,
/// so the simulator's race detector reports it. Without the second barrier (before the
/// region is written again) the write after another lane's read is reported too.
#[test]
fn shared_memory_races_are_reported() {
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %l = mgpu.lane_id : index
  %c31 = mloop.constant 31 : index
  %s = mgpu.shared_alloc {size = 32 : i64} : !mgpu.ptr<f32, 3>
  %v = mgpu.load %p[%t] : !mgpu.ptr<f32>
  %r = mloop.sub %c31, %l : index
  mgpu.store %v, %s[%r] : !mgpu.ptr<f32, 3>
  BARRIER1
  %x = mgpu.load %s[%l] : !mgpu.ptr<f32, 3>
  BARRIER2
  mgpu.store %x, %s[%r] : !mgpu.ptr<f32, 3>
  mgpu.store %x, %p[%t] : !mgpu.ptr<f32>
  mgpu.return
}"#;
    let with = |b1: &str, b2: &str| program(&k.replace("BARRIER1", b1).replace("BARRIER2", b2), 1, 32);
    let e = run(&with("", "mgpu.warp_barrier"), 32).unwrap_err();
    assert!(
        e.contains("'mgpu.load' op shared-memory race: reads element 0 that thread 31 of block 0 wrote with no barrier between them"),
        "{e}"
    );
    assert!(e.contains("(thread 0, block 0)"), "{e}");
    let e = run(&with("mgpu.warp_barrier", ""), 32).unwrap_err();
    assert!(e.contains("'mgpu.store' op shared-memory race: writes element 31 that thread 31 of block 0 read"), "{e}");
    // A block barrier orders them as well; with both barriers it runs.
    assert!(run(&with("mgpu.barrier", "mgpu.barrier"), 32).is_ok());
    assert_eq!(
        run(&with("mgpu.warp_barrier", "mgpu.warp_barrier"), 32).unwrap(),
        (0..32).rev().map(f64::from).collect::<Vec<_>>()
    );
}

#[test]
fn warp_barrier_under_divergence_within_a_warp_is_an_error() {
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %c40 = mloop.constant 40 : index
  %lo = mloop.cmp lt, %t, %c40 : index
  mgpu.if %lo {
    mgpu.warp_barrier
    mgpu.yield
  }
  mgpu.return
}"#;
    let e = run(&program(k, 1, 64), 64).unwrap_err();
    assert!(e.contains("'mgpu.warp_barrier' op reached by only 8 of the 32 lanes of warp 1"), "{e}");
    assert!(e.contains("thread 40 is inactive"), "{e}");
}

#[test]
fn barrier_in_a_loop_with_different_trip_counts_is_an_error() {
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  mloop.for %i = %c0 to %t step %c1 {
    mgpu.barrier
    mloop.yield
  }
  mgpu.return
}"#;
    let e = run(&program(k, 1, 4), 4).unwrap_err();
    assert!(e.contains("divergent barrier"), "{e}");
}

#[test]
fn out_of_bounds_is_a_diagnostic() {
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %b = mgpu.block_id : index
  %bd = mgpu.block_dim : index
  %o = mloop.mul %b, %bd : index
  %i = mloop.add %o, %t : index
  %v = mgpu.load %p[%i] : !mgpu.ptr<f32>
  mgpu.store %v, %p[%i] : !mgpu.ptr<f32>
  mgpu.return
}"#;
    let e = run(&program(k, 2, 32), 40).unwrap_err();
    assert!(
        e.contains("'mgpu.load' op out-of-bounds access: element offset 40 of global memory of 40 elements (thread 8, block 1)"),
        "{e}"
    );
    assert!(e.contains("in the kernel launched here (2 blocks of 32 threads)"), "{e}");
}

#[test]
fn misaligned_vector_access_is_a_diagnostic() {
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %c2 = mloop.constant 2 : index
  %a, %b, %c, %d = mgpu.load_vec %p[%c2] : !mgpu.ptr<f32> -> f32, f32, f32, f32
  mgpu.return
}"#;
    let e = run(&program(k, 1, 1), 16).unwrap_err();
    assert!(
        e.contains("'mgpu.load_vec' op misaligned vector access: element offset 2 is not a multiple of the width 4"),
        "{e}"
    );
}

#[test]
fn vector_store_past_the_end_is_a_diagnostic() {
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %c4 = mloop.constant 4 : index
  %z = mloop.constant 0.0 : f32
  mgpu.store_vec %z, %z, %z, %z, %p[%c4] : !mgpu.ptr<f32>
  mgpu.return
}"#;
    let e = run(&program(k, 1, 1), 6).unwrap_err();
    assert!(
        e.contains("'mgpu.store_vec' op out-of-bounds access: element offset 4..8 of global memory of 6 elements"),
        "{e}"
    );
}

#[test]
fn shared_memory_is_per_block_and_shuffles_read_other_lanes() {
    // Each block reverses its 32 elements through shared memory, then every lane adds
    // its xor-1 neighbour's original value.
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %b = mgpu.block_id : index
  %c31 = mloop.constant 31 : index
  %c32 = mloop.constant 32 : index
  %c1 = mloop.constant 1 : index
  %o = mloop.mul %b, %c32 : index
  %i = mloop.add %o, %t : index
  %v = mgpu.load %p[%i] : !mgpu.ptr<f32>
  %s = mgpu.shared_alloc {size = 32 : i64} : !mgpu.ptr<f32, 3>
  %r = mloop.sub %c31, %t : index
  mgpu.store %v, %s[%r] : !mgpu.ptr<f32, 3>
  mgpu.barrier
  %w = mgpu.load %s[%t] : !mgpu.ptr<f32, 3>
  %x = mgpu.shuffle xor %v, %c1 : f32
  %y = mloop.add %w, %x : f32
  mgpu.store %y, %p[%i] : !mgpu.ptr<f32>
  mgpu.return
}"#;
    let out = run(&program(k, 2, 32), 64).unwrap();
    for (i, got) in out.iter().enumerate() {
        let (blk, t) = (i / 32, i % 32);
        let want = (blk * 32 + 31 - t) as f64 + (blk * 32 + (t ^ 1)) as f64;
        assert_eq!(*got, want, "element {i}");
    }
}

#[test]
fn warp_reduce_gives_every_active_lane_the_sum() {
    // 40 threads: warp 0 is full, warp 1 has 8 lanes; only even threads take part.
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %c2 = mloop.constant 2 : index
  %c0 = mloop.constant 0 : index
  %r = mloop.rem %t, %c2 : index
  %even = mloop.cmp eq, %r, %c0 : index
  mgpu.if %even {
    %v = mgpu.load %p[%t] : !mgpu.ptr<f32>
    %s = mgpu.warp_reduce sum %v : f32
    mgpu.store %s, %p[%t] : !mgpu.ptr<f32>
    mgpu.yield
  }
  mgpu.return
}"#;
    let out = run(&program(k, 1, 40), 40).unwrap();
    let w0: f64 = (0..32).filter(|i| i % 2 == 0).map(|i| i as f64).sum();
    let w1: f64 = (32..40).filter(|i| i % 2 == 0).map(|i| i as f64).sum();
    for (i, got) in out.iter().enumerate() {
        let want = if i % 2 == 1 {
            i as f64
        } else if i < 32 {
            w0
        } else {
            w1
        };
        assert_eq!(*got, want, "element {i}");
    }
}

#[test]
fn warp_reduce_with_a_width_combines_each_group_of_lanes() {
    // 40 threads, groups of 8 lanes: 0..8, 8..16, ..., 32..40 (the second warp's only group).
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %v = mgpu.load %p[%t] : !mgpu.ptr<f32>
  %s = mgpu.warp_reduce sum %v {width = 8} : f32
  mgpu.store %s, %p[%t] : !mgpu.ptr<f32>
  mgpu.return
}"#;
    let out = run(&program(k, 1, 40), 40).unwrap();
    for (i, got) in out.iter().enumerate() {
        let g = i / 8 * 8;
        let want: f64 = (g..g + 8).map(|x| x as f64).sum();
        assert_eq!(*got, want, "element {i}");
    }
}

#[test]
fn atomics_from_many_threads_give_the_exact_result() {
    // 4 blocks of 96 threads (g = global id, 0..384): p[0] += g + 1, p[1] = max(p[1], g),
    // p[2] = min(p[2], 100 - g); each thread stores the old value of its add at p[3 + g].
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %b = mgpu.block_id : index
  %bd = mgpu.block_dim : index
  %o = mloop.mul %b, %bd : index
  %g = mloop.add %o, %t : index
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c2 = mloop.constant 2 : index
  %c3 = mloop.constant 3 : index
  %gf = mloop.convert %g : index to f32
  %one = mloop.constant 1.0 : f32
  %hundred = mloop.constant 100.0 : f32
  %v = mloop.add %gf, %one : f32
  %old = mgpu.atomic_rmw add %v, %p[%c0] : !mgpu.ptr<f32>
  %m = mgpu.atomic_rmw max %gf, %p[%c1] : !mgpu.ptr<f32>
  %w = mloop.sub %hundred, %gf : f32
  %l = mgpu.atomic_rmw min %w, %p[%c2] : !mgpu.ptr<f32>
  %at = mloop.add %g, %c3 : index
  mgpu.store %old, %p[%at] : !mgpu.ptr<f32>
  mgpu.return
}"#;
    let n = 384;
    let out = run(&program(k, 4, 96), 3 + n).unwrap();
    // p[0] starts at 0, p[1] at 1, p[2] at 2 (run fills the buffer with 0, 1, 2, ...).
    assert_eq!(out[0], (n * (n + 1) / 2) as f64);
    assert_eq!(out[1], (n - 1) as f64);
    assert_eq!(out[2], 100.0 - (n - 1) as f64);
    // Every thread saw a different partial sum; the simulator runs them in order.
    for g in 0..n {
        assert_eq!(out[3 + g], (g * (g + 1) / 2) as f64, "old value of thread {g}");
    }
}

#[test]
fn atomic_max_propagates_nan() {
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %c0 = mloop.constant 0 : index
  %c5 = mloop.constant 5 : index
  %z = mloop.constant 0.0 : f32
  %nan = mloop.div %z, %z : f32
  %tf = mloop.convert %t : index to f32
  %is5 = mloop.cmp eq, %t, %c5 : index
  %v = mloop.select %is5, %nan, %tf : f32
  %m = mgpu.atomic_rmw max %v, %p[%c0] : !mgpu.ptr<f32>
  mgpu.return
}"#;
    let out = run(&program(k, 1, 32), 1).unwrap();
    assert!(out[0].is_nan(), "{out:?}");
}

#[test]
fn index_atomics_count() {
    // `!mloop.buffer` holds no `index` elements, so the host passes an f32 buffer that the
    // test then relabels as `index` memory, and the module is not verified (the launch
    // verifier would reject the mismatch).
    let src = r#"
mgpu.func @k(%p: !mgpu.ptr<index>) kernel {
  %t = mgpu.thread_id : index
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %a = mgpu.atomic_rmw add %c1, %p[%c0] : !mgpu.ptr<index>
  %m = mgpu.atomic_rmw max %t, %p[%c1] : !mgpu.ptr<index>
  mgpu.return
}
func.func @main(%b: !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c2 = mloop.constant 2 : index
  %c70 = mloop.constant 70 : index
  mgpu.launch @k blocks(%c2) threads(%c70) shared(%c0) args(%b) : !mloop.buffer<?xf32>
  return
}"#;
    let mut ctx = Context::new();
    morf_loop::register(&mut ctx);
    morf_gpu::register(&mut ctx);
    let m = morf_ir::parse_source(&mut ctx, "t.mlir", src, 0).unwrap_or_else(|d| panic!("{}", d.message));
    let f = morf_ir::builtin::lookup_function(&ctx, m, "main").expect("@main");
    let a = Rc::new(RefCell::new(Array::new(vec![2], vec![5.0, 0.0])));
    let b = RtValue::Buffer { elem: ctx.index_type(), data: a.clone() };
    run_function(&ctx, f, vec![b]).unwrap_or_else(|d| panic!("{}", ctx.render(&d)));
    assert_eq!(a.borrow().data, vec![5.0 + 140.0, 69.0]);
}

#[test]
fn atomic_out_of_bounds_is_a_diagnostic() {
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %one = mloop.constant 1.0 : f32
  %o = mgpu.atomic_rmw add %one, %p[%t] : !mgpu.ptr<f32>
  mgpu.return
}"#;
    let e = run(&program(k, 1, 8), 4).unwrap_err();
    assert!(
        e.contains("'mgpu.atomic_rmw' op out-of-bounds access: element offset 4 of global memory of 4 elements (thread 4, block 0)"),
        "{e}"
    );
}

#[test]
fn too_many_threads_is_an_error() {
    let k = r#"
mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel attributes {max_threads = 64 : i64} {
  mgpu.return
}"#;
    let e = run(&program(k, 1, 128), 4).unwrap_err();
    assert!(e.contains("threads must be in 1..=64 for '@k', got 128"), "{e}");
}

#[test]
fn kernel_ops_do_not_run_outside_a_launch() {
    let mut ctx = Context::new();
    morf_gpu::register(&mut ctx);
    let src = "mgpu.func @k() kernel {\n  %t = mgpu.thread_id : index\n  mgpu.return\n}";
    let m = morf_ir::parse_source(&mut ctx, "t.mlir", src, 0).unwrap();
    let k = morf_gpu::ops::kernel::lookup_kernel(&ctx, m, "k").unwrap().id();
    let e = run_function(&ctx, k, vec![]).unwrap_err();
    assert!(e.message.contains("runs only inside a kernel launched by 'mgpu.launch'"), "{}", e.message);
}
