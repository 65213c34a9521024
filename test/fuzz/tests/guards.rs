//! The interpreter guards the fuzz targets rely on: the per-thread element limit
//! (`morf_ir::interp::set_element_limit`) and the step budget (`Machine::max_steps`), which
//! the GPU simulator counts per op and thread.

use std::cell::RefCell;
use std::rc::Rc;

use morf_ir::interp::{Array, Machine, RtValue};
use morf_ir::{Context, OpId};

fn load(text: &str) -> (Context, OpId) {
    let mut ctx = Context::new();
    morf_tensor::register(&mut ctx);
    morf_loop::register(&mut ctx);
    morf_gpu::register(&mut ctx);
    ctx.add_source("t.mlir", text);
    let m = morf_ir::parse_source(&mut ctx, "t.mlir", text, 0).expect("parses");
    morf_ir::verify(&ctx, m).expect("verifies");
    (ctx, m)
}

#[test]
fn element_limit_stops_big_tensors() {
    let (ctx, m) = load(
        "func.func @f() -> tensor<1000xf32> {\n  %c = mtensor.constant dense<1.0> : tensor<1000xf32>\n  return %c : tensor<1000xf32>\n}\n",
    );
    let f = morf_ir::builtin::lookup_function(&ctx, m, "f").expect("@f");
    let prev = morf_ir::interp::set_element_limit(64);
    assert_eq!(prev, morf_ir::interp::MAX_ELEMENTS);
    let err = morf_ir::interp::run_function(&ctx, f, vec![]).expect_err("over the limit");
    assert!(err.message.contains("too large"), "{}", err.message);
    assert_eq!(morf_ir::interp::set_element_limit(prev), 64);
    let out = morf_ir::interp::run_function(&ctx, f, vec![]).expect("under the default limit");
    assert_eq!(out[0].as_tensor().map(|a| a.num_elements()), Some(1000));
}

const GRID: &str = "mgpu.func @k(%y: !mgpu.ptr<f32>, %n: index) kernel attributes {max_threads = 32 : i64} {
  %t = mgpu.thread_id : index
  %bd = mgpu.block_dim : index
  mloop.for %i = %t to %n step %bd {
    %c = mloop.constant 2.0 : f32
    mgpu.store %c, %y[%i] : !mgpu.ptr<f32>
    mloop.yield
  }
  mgpu.return
}

func.func @main(%y: !mloop.buffer<?xf32>, %blocks: index) -> !mloop.buffer<?xf32> {
  %c0 = mloop.constant 0 : index
  %c32 = mloop.constant 32 : index
  %n = mloop.dim %y, 0 : !mloop.buffer<?xf32>
  mgpu.launch @k blocks(%blocks) threads(%c32) shared(%c0) args(%y, %n) : !mloop.buffer<?xf32>, index
  return %y : !mloop.buffer<?xf32>
}
";

fn grid_args(ctx: &mut Context, n: usize, blocks: i64) -> Vec<RtValue> {
    let elem = ctx.f32_type();
    vec![RtValue::Buffer { elem, data: Rc::new(RefCell::new(Array::new(vec![n], vec![0.0; n]))) }, RtValue::Int(blocks)]
}

#[test]
fn simulated_kernels_spend_the_host_step_budget() {
    let (mut ctx, m) = load(GRID);
    let f = morf_ir::builtin::lookup_function(&ctx, m, "main").expect("@main");

    // A small launch runs, and its thread-ops count against the host's steps.
    let mut small = Machine::new();
    let args = grid_args(&mut ctx, 64, 2);
    let out = small.call(&ctx, f, args).expect("runs");
    let RtValue::Buffer { data, .. } = &out[0] else { panic!("a buffer") };
    assert!(data.borrow().data.iter().all(|&v| v == 2.0));
    assert!(small.steps > 2 * 32 * 4, "only {} steps counted", small.steps);

    // A launch of a million blocks stops at the budget instead of running for minutes.
    let mut big = Machine::new();
    big.max_steps = 100_000;
    let t = std::time::Instant::now();
    let args = grid_args(&mut ctx, 64, 1_000_000);
    let err = big.call(&ctx, f, args).expect_err("over the budget");
    assert!(err.message.contains("step limit exceeded"), "{}", err.message);
    assert!(t.elapsed().as_secs() < 10);
}
